/**
 * Unpacks a binary distribution's archive (zip, tar.gz, tgz, tar.bz2, or a raw binary) into an
 * agent's install folder with maintained libraries (node-tar, adm-zip, seek-bzip). Entries that
 * would land outside the folder are refused by the libraries (node-tar strips `..` and absolute
 * paths; adm-zip resolves each name inside the target).
 */
import { chmodSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import AdmZip from 'adm-zip';
import Bunzip from 'seek-bzip';
import { x as untar } from 'tar';
import { archiveKind } from './archive-kind.js';

export async function extractArchive(data: Buffer, url: string, dir: string, cmd: string): Promise<void> {
  const kind = archiveKind(url);
  if (kind === 'zip') {
    new AdmZip(data).extractAllTo(dir, true, true);
    return;
  }
  if (kind === 'raw') {
    // A raw binary is the command itself.
    writeFileSync(join(dir, basename(cmd)), data);
    chmodSync(join(dir, basename(cmd)), 0o755);
    return;
  }
  const tarData = kind === 'tar.bz2' ? Bunzip.decode(data) : data;
  // node-tar detects gzip by its magic bytes.
  await pipeline(Readable.from([tarData]), untar({ cwd: dir, strict: true }));
}
