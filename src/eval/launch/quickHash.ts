/**
 * A 128-bit hash of a string, without node:crypto (whose loading costs a call's start-up some
 * 8-10 ms of CPU, before the kernel's process could be spawned). Not cryptographic: it names a
 * call's recipe (recipe.ts), a guess that prestart.ts checks before it uses the process.
 */
export function quickHash(text: string): string {
  // Four lanes of 32 bits, each a multiply-xorshift over the UTF-16 units, mixed into each other
  // at the end (MurmurHash3's finalizer).
  let a = 0x811c9dc5;
  let b = 0x9e3779b9;
  let c = 0x85ebca6b;
  let d = 0xc2b2ae35;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    a = Math.imul(a ^ unit, 0x01000193);
    b = Math.imul(b ^ unit, 0x5bd1e995);
    b ^= b >>> 15;
    c = Math.imul(c ^ unit, 0x27d4eb2f);
    c ^= c >>> 13;
    d = Math.imul(d ^ unit, 0x165667b1);
    d ^= d >>> 16;
  }
  const length = text.length;
  a ^= length;
  b ^= Math.imul(length, 0x9e3779b1);
  a = fmix(a + b + c + d);
  b = fmix(b + a);
  c = fmix(c + a);
  d = fmix(d + a);
  a = fmix(a + b + c + d);
  return [a, b, c, d].map((x) => (x >>> 0).toString(16).padStart(8, '0')).join('');
}

function fmix(h: number): number {
  let x = h | 0;
  x ^= x >>> 16;
  x = Math.imul(x, 0x85ebca6b);
  x ^= x >>> 13;
  x = Math.imul(x, 0xc2b2ae35);
  x ^= x >>> 16;
  return x;
}
