/** Ink's build/measure-text.js, as the Ink bundle gets it (see textWidth.ts). */
export { measureText as default } from './textWidth.js';
