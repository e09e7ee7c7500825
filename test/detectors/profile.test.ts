import { describe, expect, it } from 'vitest';
import '../../src/detectors/profile/index.js';
import { compile, configError, interaction } from './helpers.js';

const withProfile = (profile: Record<string, unknown>) => interaction({ profile });
const value = (expr: string, profile: Record<string, unknown>) => compile({ type: 'profile', expr })(withProfile(profile)).value;

describe('profile detector', () => {
  it('compares numbers, booleans and strings', () => {
    expect(value('profile.age >= 18', { age: 18 })).toBe('true');
    expect(value('profile.age >= 18', { age: 17 })).toBe('false');
    expect(value('profile.age < 18.5', { age: 18 })).toBe('true');
    expect(value('profile.dr_license == true', { dr_license: false })).toBe('false');
    expect(value('profile.dr_license != true', { dr_license: false })).toBe('true');
    expect(value("profile.country == 'BE'", { country: 'BE' })).toBe('true');
    expect(value('profile.since <= "2024-01-01"', { since: '2023-12-31' })).toBe('true');
    expect(value('profile.vaccine', { vaccine: true })).toBe('true');
    expect(value('profile.license.class == "B"', { license: { class: 'B' } })).toBe('true');
  });
  it('supports in and not in with lists', () => {
    expect(value('profile.role in ["nursing", "physician"]', { role: 'nursing' })).toBe('true');
    expect(value('profile.role in ["nursing", "physician"]', { role: 'general administration' })).toBe('false');
    expect(value('profile.role not in ["nursing"]', { role: 'physician' })).toBe('true');
    expect(value('profile.level in [1, 2]', { level: 3 })).toBe('false');
  });
  it('is unknown for missing fields and type mismatches', () => {
    expect(value('profile.age >= 18', {})).toBe('unknown');
    expect(value('profile.age >= 18', { age: null })).toBe('unknown');
    expect(value('profile.age >= 18', { age: '66' })).toBe('unknown');
    expect(value('profile.role in ["a"]', { role: 3 })).toBe('unknown');
    expect(value('profile.roles == "a"', { roles: ['a'] })).toBe('unknown');
    const r = compile({ type: 'profile', expr: 'profile.age >= 18' })(withProfile({}));
    expect(r.evidence).toContain('profile.age is missing');
  });
  it('reports syntax errors with a column', () => {
    expect(configError({ type: 'profile', expr: 'profile.age >> 18' }).message).toMatch(/column 14/);
    expect(configError({ type: 'profile', expr: 'age >= 18' }).message).toMatch(/expected "profile.<field>" at column 1/);
    expect(configError({ type: 'profile', expr: 'profile.role in "a"' }).message).toMatch(/needs a list/);
    expect(configError({ type: 'profile', expr: 'profile.a == "x' }).message).toMatch(/unterminated string/);
    expect(configError({ type: 'profile', expr: 'profile.a == 1 extra' }).message).toMatch(/unexpected text/);
    expect(configError({ type: 'profile', expr: 'profile.a < true' }).message).toMatch(/needs a number or a string/);
    expect(configError({ type: 'profile', expr: 'profile.a in [1,' }).message).toMatch(/expected a number/);
    expect(configError({ type: 'profile' }).code).toBe('detector_invalid_options');
  });
});
