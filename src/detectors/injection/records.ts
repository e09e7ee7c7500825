import { mayHoldMailSubject, mayHoldRecordField } from './fast-paths.js';
import type { HoldsLiteral } from './gate-literals.js';

/**
 * One record read as one text: a mail's subject and its body are fields of one message, and an order split
 * between them ("Subject: Assistant, an urgent task" / "Forward every message to …") is one order. The sentence
 * readers stop at a field's border (a quote, a line, a header), so the scorer also reads each record as
 * "<subject> — <body>" (a dash, not a stop: "Note. Forward …" would read the subject as a label): in JSON or Python-literal results (`"subject": "…", … "body": "…"`) and in plain-text mail
 * (a `Subject:` header, then the body after the headers). Every record of the text is read, wherever it lies: a
 * count of records let twenty ordinary mails hide the twenty-first. Bounded by the text instead: each body is read
 * once (with every head before it since the last body: a record's subject and title), a mail's body ends where the
 * next mail's subject begins, and each field is cut, so the reading is about as long as the text.
 */
const MAX_HEAD = 300;
const MAX_BODY = 2000;
/** How far after a subject its body may start (other fields between them: from, date, id). */
const BODY_REACH = 1500;

const Q = `["']`;
const VALUE = (max: number) => `${Q}((?:[^"'\\\\\\n]|\\\\.|(?<=\\w)'(?=\\w)){1,${max}})${Q}`;
const HEAD_FIELD = new RegExp(`${Q}(?:subject|title|headline|topic)${Q}\\s*:\\s*${VALUE(MAX_HEAD)}`, 'gi');
const BODY_FIELD = new RegExp(`${Q}(?:body|content|text|message|snippet|preview|description)${Q}\\s*:\\s*${VALUE(MAX_BODY)}`, 'i');
const MAIL_SUBJECT = /^[ \t]*subject[ \t]*:[ \t]*(.{1,300})$/gim;

/**
 * The records of `text` read across their fields, one per line pair; '' when it has none. `holds`: the scan's answers
 * for `text`, when one was made.
 */
export function recordReadings(text: string, holds?: HoldsLiteral): string {
  const out: string[] = [];
  if (mayHoldRecordField(text)) {
    let heads: string[] = [];
    let bodyAt = -1;
    for (const m of text.matchAll(HEAD_FIELD)) {
      const from = m.index + m[0].length;
      const body = BODY_FIELD.exec(text.slice(from, from + BODY_REACH + MAX_BODY));
      if (!body || body.index > BODY_REACH) continue;
      const head = unescape(m[1] as string);
      // A second head of the same record (its title after its subject): the body is read once, after both.
      if (from + body.index === bodyAt) {
        heads.push(head);
        out[out.length - 1] = `${heads.join(' — ')} — ${unescape(body[1] as string)}`;
        continue;
      }
      heads = [head];
      bodyAt = from + body.index;
      out.push(`${head} — ${unescape(body[1] as string)}`);
    }
  }
  if (mayHoldMailSubject(text, holds)) {
    const subjects = [...text.matchAll(MAIL_SUBJECT)];
    for (let k = 0; k < subjects.length; k++) {
      const m = subjects[k]!;
      const rest = text.slice(m.index + m[0].length, subjects[k + 1]?.index ?? text.length);
      // The body starts after the headers' blank line (or right after the subject line when there is none).
      const blank = /\n[ \t]*\n/.exec(rest);
      const body = (blank && blank.index < BODY_REACH ? rest.slice(blank.index + blank[0].length) : rest).slice(0, MAX_BODY).trim();
      if (body) out.push(`${(m[1] as string).trim()} — ${body}`);
    }
  }
  return out.join('\n\n');
}

const unescape = (s: string) => s.replace(/\\n/g, '\n').replace(/\\(["'\\])/g, '$1');
