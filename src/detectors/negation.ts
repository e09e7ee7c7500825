/**
 * Whether a match is governed by a negation in its own clause: "do not give us your phone number, pin, or other
 * sensitive info" warns about a PIN, it does not ask for one. The clause is the text from the last clause border
 * (. ; ! ? newline, a bracket or a quote: JSON strings are clauses of their own) to the match, at most `REACH`
 * characters back. A negation counts only when it negates giving ("do not give/share/enter/send …", "never
 * type …", "no …" directly before the match, "not your …"): "do not forget to enter your password" still asks, and so
 * does an exception after the match in the same clause ("do not share your PIN with anyone except this form").
 */
const REACH = 120;
const BORDER = /[.;!?\n()[\]{}"]/;
const GIVE = '(?:give|share|send|enter|type|provide|include|put|paste|tell|disclose|reveal|write|submit|post|store|use|input|supply)';
const NEGATED_GIVING = new RegExp(`\\b(?:do not|don't|dont|never|must not|mustn't|should not|shouldn't|we will never ask (?:you )?to|we never ask (?:you )?to)\\s+(?:(?:ever|\\w+ly)\\s+)?${GIVE}\\b|\\bwithout\\s+(?:\\w+\\s+){0,1}?(?:giving|sharing|sending|entering|typing|providing)\\b|\\bnever ask(?:s|ed)? (?:you )?for\\b`, 'i');
const NO_BEFORE = /\b(?:no|not (?:your|a|an|the|any))\s+(?:\w+\s+){0,1}$/i;
/** "Do not share your PIN with anyone except this form": the exception is the request. */
const EXCEPT_AFTER = /\b(?:except|other than|apart from|but (?:here|in|to|with|this)|only (?:here|in|to|with|this))\b/i;

export function negatedAt(text: string, start: number): boolean {
  let from = Math.max(0, start - REACH);
  for (let i = start - 1; i >= from; i--) {
    if (BORDER.test(text[i] as string)) {
      from = i + 1;
      break;
    }
  }
  const clause = text.slice(from, start);
  if (!NEGATED_GIVING.test(clause) && !NO_BEFORE.test(clause)) return false;
  let to = Math.min(text.length, start + REACH);
  for (let i = start; i < to; i++) {
    if (BORDER.test(text[i] as string)) {
      to = i;
      break;
    }
  }
  return !EXCEPT_AFTER.test(text.slice(start, to));
}
