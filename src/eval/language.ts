/**
 * The kernels' two languages, as cells, kernels, tools and the wire name them: Python (`py`) and
 * JavaScript (`js`). One name for the type everywhere (it lies below every other module of the
 * engine, so the lowest may import it).
 */
export type Language = 'py' | 'js';
