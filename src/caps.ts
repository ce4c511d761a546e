/** The caps face: sessions as object capabilities over CapTP (importing it locks the process down, SES). */
export * from './caps/index.js';
