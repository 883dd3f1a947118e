/** The wire protocol between the host and its kernels: frames, requests, the bridge, framing. */
export * from './bridge.js';
export * from './frames.js';
export * from './lines.js';
export * from './markers.js';
export * from './requests.js';
