// node:fs, with globSync where this Node has none (Node 22 added it).
import fs from 'node:fs';

export * from 'node:fs';
export default fs;
export const globSync =
  fs.globSync ??
  (() => {
    throw new Error('fs.globSync needs Node 22; the conformance server scenarios do not use it');
  });
