import { test } from 'node:test';
import assert from 'node:assert/strict';
import { submissionEndpointOf, type SubmissionSettings } from '../../src/app/submission-endpoint.ts';
import { loadConfig } from '../../src/config.ts';

const OFF: SubmissionSettings = {
  publicUrl: 'https://herald.example.com', submissionPort: undefined, submissionsPort: undefined,
  submissionPublicHost: undefined, submissionTlsKey: undefined, submissionTlsCert: undefined,
};
const WITH_CERT = { submissionTlsKey: '/etc/herald/key.pem', submissionTlsCert: '/etc/herald/cert.pem' };

test('with both ports off there is no endpoint', () => {
  assert.equal(submissionEndpointOf(OFF), undefined);
});

test('the configured ports and certificate make the endpoint, on the host of the public URL', () => {
  assert.deepStrictEqual(submissionEndpointOf({ ...OFF, ...WITH_CERT, submissionPort: 587, submissionsPort: 465 }), {
    host: 'herald.example.com', starttlsPort: 587, implicitTlsPort: 465, tls: true,
  });
});

test('HERALD_SUBMISSION_PUBLIC_HOST is the host when set', () => {
  assert.deepStrictEqual(submissionEndpointOf({ ...OFF, submissionPort: 587, submissionPublicHost: 'mail.example.com' }), {
    host: 'mail.example.com', starttlsPort: 587, implicitTlsPort: undefined, tls: false,
  });
});

test('without a certificate the endpoint says no TLS', () => {
  assert.equal(submissionEndpointOf({ ...OFF, submissionPort: 2525 })?.tls, false);
});

test('an IPv6 public URL gives the address without its brackets', () => {
  assert.equal(submissionEndpointOf({ ...OFF, publicUrl: 'http://[2001:db8::1]:3000', submissionPort: 587 })?.host, '2001:db8::1');
});

test('bound ports replace the configured ones, a port picked at start included', () => {
  assert.deepStrictEqual(submissionEndpointOf({ ...OFF, ...WITH_CERT, submissionPort: 0, submissionsPort: 0 }, { starttlsPort: 40587, implicitTlsPort: 40465 }), {
    host: 'herald.example.com', starttlsPort: 40587, implicitTlsPort: 40465, tls: true,
  });
});

test('a port not among the bound ones is off', () => {
  assert.deepStrictEqual(submissionEndpointOf({ ...OFF, submissionPort: 587 }, { starttlsPort: 587 }), {
    host: 'herald.example.com', starttlsPort: 587, implicitTlsPort: undefined, tls: false,
  });
});

test('with no port bound there is no endpoint, whatever was configured', () => {
  assert.equal(submissionEndpointOf({ ...OFF, submissionPort: 587 }, {}), undefined);
});

test('the loaded configuration is what it reads: HERALD_SUBMISSION_PORT on, the host of the default public URL', () => {
  assert.deepStrictEqual(submissionEndpointOf(loadConfig({ HERALD_SUBMISSION_PORT: '587', HERALD_PORT: '8080' })), {
    host: 'localhost', starttlsPort: 587, implicitTlsPort: undefined, tls: false,
  });
});
