/** What an output sink keeps (its limits) and what it says about what it left out. */
export interface SinkLimits {
  /** Characters kept from the start. */
  headChars: number;
  /** Characters kept from the end. */
  tailChars: number;
  /** A line longer than this is committed in pieces (bounds memory for output without newlines). */
  lineChars: number;
  /** Keep text at all (false: only count it; nothing in memory, no artifact). */
  keep: boolean;
}

export const DEFAULT_SINK_LIMITS: SinkLimits = {
  headChars: 20_000,
  tailChars: 30_000,
  lineChars: 1 << 20,
  keep: true,
};

export interface Truncation {
  totalChars: number;
  totalLines: number;
  omittedChars: number;
  omittedLines: number;
  /** Where the full output is, as a phrase (`full output: artifact://<id> (<path>)`, or why not). */
  fullOutput: string;
  /** Where all of the output is (absent when it could not be saved: see artifactError). */
  artifact?: string;
  artifactPath?: string;
  artifactError?: string;
}
