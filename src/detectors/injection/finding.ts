/** A signal that fired, with its weight and a short description of what matched. */
export interface Finding {
  signal: string;
  detail: string;
  weight: number;
  /** The sentence that carried it, where one sentence did (kept out of evidence). */
  sentence?: string;
  /** An order aimed at an AI (which a how-to never gives): the text is not weighed down as instructions. */
  aimedAtAi?: boolean;
}
