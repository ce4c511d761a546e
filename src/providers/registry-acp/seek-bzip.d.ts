// seek-bzip ships no types; only decode() is used (extract.ts).
declare module 'seek-bzip' {
  const Bunzip: { decode(input: Uint8Array): Buffer };
  export default Bunzip;
}
