import { describe, expect, it } from 'vitest';
import '../../src/detectors/url-domain.js';
import { BIG, call, compile, configError, scan } from './helpers.js';

describe('url_domain detector', () => {
  const deny = { type: 'url_domain', deny: ['evil.com', '10.0.0.1'] };
  it('matches denied domains on dot boundaries', () => {
    expect(scan(deny, 'see https://evil.com/x').value).toBe('true');
    expect(scan(deny, 'see https://a.b.EVIL.com./x').value).toBe('true');
    expect(scan(deny, 'see https://notevil.com/x').value).toBe('false');
    expect(scan(deny, 'see https://evil.com.example.org/x').value).toBe('false');
    expect(scan(deny, 'ws://10.0.0.1:8080/socket').value).toBe('true');
  });
  it('takes hosts after userinfo and checks both readings of tricky authorities', () => {
    expect(scan(deny, 'https://good.com@evil.com/').value).toBe('true');
    expect(scan(deny, 'https://evil.com\\@good.com/').value).toBe('true');
    expect(scan({ type: 'url_domain', allow: ['good.com'] }, 'https://good.com\\@evil.com/').value).toBe('true');
  });
  it('with allow, flags anything not covered', () => {
    const allow = { type: 'url_domain', allow: ['github.com', '*.internal.example'] };
    expect(scan(allow, 'clone https://github.com/a/b and https://api.github.com/x').value).toBe('false');
    expect(scan(allow, 'post to https://svc.internal.example/hook').value).toBe('false');
    const r = scan(allow, 'post to https://paste.example.net/new');
    expect(r.value).toBe('true');
    expect(r.evidence).toContain('paste.example.net is not allowed');
    expect(r.spans).toEqual([{ field: 'content', start: 8, end: 37 }]);
  });
  it('checks e-mail domains unless emails: false', () => {
    const allow = { type: 'url_domain', allow: ['corp.example'] };
    expect(scan(allow, 'mail bob@corp.example').value).toBe('false');
    expect(scan(allow, 'mail eve@gmail.com').value).toBe('true');
    expect(scan({ ...allow, emails: false }, 'mail eve@gmail.com').value).toBe('false');
  });
  it('ignores text without URLs and absent fields', () => {
    expect(scan(deny, 'evil.com is mentioned but not linked').value).toBe('false');
    expect(compile({ ...deny, field: 'arguments.to' })(call({ body: 'https://evil.com' })).value).toBe('false');
    expect(compile({ ...deny, field: 'arguments.to' })(call({ to: 'https://evil.com' })).value).toBe('true');
  });
  it('rejects empty or malformed lists', () => {
    expect(configError({ type: 'url_domain' }).message).toMatch(/allow, deny or both/);
    expect(configError({ type: 'url_domain', deny: ['evil com'] }).message).toMatch(/not a domain/);
  });
  it('bounds work on 5 MB', () => {
    expect(compile(deny)(call({ b: `${BIG} https://evil.com` })).value).toBe('true');
    expect(compile(deny)(call({ b: `https://evil.com ${BIG}` })).value).toBe('true');
  });
});
