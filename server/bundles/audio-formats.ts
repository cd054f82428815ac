/**
 * The seven sound formats the platform accepts, recognised twice: by file extension and by the file's first
 * bytes, so a renamed text file is not a sound.
 */
export const AUDIO_FORMATS = ["MP3", "WAV", "OGG", "WebM", "M4A", "AAC", "FLAC"] as const;
export type AudioFormat = (typeof AUDIO_FORMATS)[number];

const BY_EXTENSION: Record<string, AudioFormat> = {
  ".mp3": "MP3",
  ".wav": "WAV",
  ".ogg": "OGG",
  ".oga": "OGG",
  ".webm": "WebM",
  ".m4a": "M4A",
  ".aac": "AAC",
  ".flac": "FLAC",
};

/** How many leading bytes `sniffAudio` needs. */
export const SNIFF_BYTES = 16;

export function audioFormatOfName(path: string): AudioFormat | null {
  const dot = path.lastIndexOf(".");
  if (dot < 0 || dot < path.lastIndexOf("/")) return null;
  return BY_EXTENSION[path.slice(dot).toLowerCase()] ?? null;
}

const ascii = (b: Uint8Array, at: number, text: string) => {
  if (b.length < at + text.length) return false;
  for (let i = 0; i < text.length; i++) if (b[at + i] !== text.charCodeAt(i)) return false;
  return true;
};

/** MPEG audio frame sync: 11 set bits, then a version and a layer that are not "reserved". */
const isMpegFrame = (b: Uint8Array) =>
  b.length >= 2 && b[0] === 0xff && (b[1]! & 0xe0) === 0xe0 && (b[1]! & 0x18) !== 0x08 && (b[1]! & 0x06) !== 0;
/** AAC ADTS: 12 set bits, layer 00. */
const isAdts = (b: Uint8Array) => b.length >= 2 && b[0] === 0xff && (b[1]! & 0xf6) === 0xf0;

/** Whether the leading bytes are those of a file of `format`. */
export function matchesMagic(format: AudioFormat, head: Uint8Array): boolean {
  switch (format) {
    case "MP3":
      return ascii(head, 0, "ID3") || isMpegFrame(head);
    case "WAV":
      return ascii(head, 0, "RIFF") && ascii(head, 8, "WAVE");
    case "OGG":
      return ascii(head, 0, "OggS");
    case "WebM":
      return head.length >= 4 && head[0] === 0x1a && head[1] === 0x45 && head[2] === 0xdf && head[3] === 0xa3;
    case "M4A":
      return ascii(head, 4, "ftyp");
    case "AAC":
      // Raw ADTS or ADIF streams; an ID3 tag in front of ADTS is common.
      return isAdts(head) || ascii(head, 0, "ADIF") || ascii(head, 0, "ID3");
    case "FLAC":
      return ascii(head, 0, "fLaC");
  }
}
