import { describe, expect, it } from 'vitest';
import '../../src/detectors/index.js';
import { call, compile, configError, interaction } from './helpers.js';

const msg = (content: string) => interaction({ kind: 'message', content, sender: 'user', recipient: 'agent' });

describe('semantic_category', () => {
  const flight = compile({
    type: 'semantic_category',
    category: 'The user wants to book or search for a flight',
    keywords: ['flight', 'airfare', 'plane ticket*'],
    negative: ['track flight', 'flight status'],
    field: 'content',
  });

  it('is true on keyword hits, including plural and prefix forms', () => {
    expect(flight(msg('Find a one-way nonstop flight to San Diego')).value).toBe('true');
    expect(flight(msg('Browse FLIGHTS from London')).evidence).toContain('"flight"');
    expect(flight(msg('cheap plane tickets to Rome')).value).toBe('true');
  });

  it('is false on unrelated text and when a negative phrase matches', () => {
    expect(flight(msg('Find a hotel room in Chicago')).value).toBe('false');
    const tracked = flight(msg('Track flight QR145 on April 18'));
    expect(tracked.value).toBe('false');
    expect(tracked.evidence).toContain('excluded');
  });

  it('falls back to embedding similarity with the description when no keyword matches', () => {
    const similar = compile({ type: 'semantic_category', category: 'apply for a job opening', threshold: 0.3, field: 'content' });
    const near = similar(msg('please apply to the job openings at the park'));
    const far = similar(msg('show me red sneakers'));
    expect(near.value).toBe('true');
    expect(far.value).toBe('false');
    expect(near.score as number).toBeGreaterThan(far.score as number);
  });

  it('does not match inside other words, and is false when the field is absent', () => {
    const car = compile({ type: 'semantic_category', category: 'rent a car', keywords: ['car'], field: 'any' });
    expect(car(call({ action: 'add the card to the cart' })).value).toBe('false');
    expect(car(call({ action: 'select my car' })).value).toBe('true');
    expect(flight(call({ action: 'flight' })).value).toBe('false');
  });

  it('rejects empty phrases and bad thresholds at load', () => {
    expect(configError({ type: 'semantic_category', category: 'x', keywords: ['!!'] }).message).toContain('!!');
    expect(configError({ type: 'semantic_category', category: 'x', threshold: 2 }).code).toBe('detector_invalid_options');
  });
});
