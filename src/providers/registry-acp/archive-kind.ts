/** What a distribution's archive is, by its URL (apart from extract.ts, which loads the archive readers). */
export type ArchiveKind = 'zip' | 'tar.gz' | 'tar.bz2' | 'tar' | 'raw';

/** By the URL's file name, as FORMAT.md lists the archive types. */
export function archiveKind(url: string): ArchiveKind {
  const name = new URL(url).pathname.toLowerCase();
  if (name.endsWith('.zip')) return 'zip';
  if (name.endsWith('.tar.gz') || name.endsWith('.tgz')) return 'tar.gz';
  if (name.endsWith('.tar.bz2') || name.endsWith('.tbz2')) return 'tar.bz2';
  if (name.endsWith('.tar')) return 'tar';
  return 'raw';
}
