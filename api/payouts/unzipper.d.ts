/** The part of unzipper (0.10, no published types) that reads a zip by its central directory. */
declare module 'unzipper' {
  import type { Readable } from 'node:stream';

  export interface CentralDirectoryEntry {
    path: string;
    type: 'File' | 'Directory';
    /** As the central directory declares it. */
    uncompressedSize: number;
    stream(password?: string): Readable;
  }

  export interface CentralDirectory {
    files: CentralDirectoryEntry[];
  }

  /** Where the zip's bytes come from: a stream of a range, and the total size. */
  export interface RangedSource {
    stream(offset: number, length?: number): Readable;
    size(): Promise<number>;
  }

  const unzipper: {
    Open: {
      custom(source: RangedSource): Promise<CentralDirectory>;
    };
  };
  export default unzipper;
}
