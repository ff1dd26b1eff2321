import { test } from 'node:test';
import { ADMIN_TOKEN, openAccount, startService } from '../support/service.ts';

test('explore', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service);
  const doc = (await service.http.inject({ method: 'GET', url: '/openapi.json' })).json();
  for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
    if (!path.startsWith('/v1/') && !path.startsWith('/admin/v1/')) continue;
    for (const [method, op] of Object.entries(item)) {
      const body = op.requestBody?.content?.['application/json']?.schema;
      const query = (op.parameters ?? []).filter((p: any) => p.in === 'query');
      if (body === undefined && query.length === 0) continue;
      const url = path.replace(/\{[^}]+\}/g, '00000000-0000-4000-8000-000000000000');
      const auth = path.startsWith('/admin') ? ADMIN_TOKEN : account.apiKey;
      let res;
      if (body !== undefined) {
        res = await service.http.inject({ method: method.toUpperCase() as 'POST', url, headers: { authorization: `Bearer ${auth}`, 'content-type': 'application/json' }, payload: JSON.stringify({ zz_unknown: 1 }) });
      } else {
        res = await service.http.inject({ method: method.toUpperCase() as 'GET', url: `${url}?${query[0].name}=%%%bad&zz=1`, headers: { authorization: `Bearer ${auth}` } });
      }
      console.log(method.toUpperCase(), path, body ? 'BODY' : 'QUERY', body?.additionalProperties, body?.required?.join(','), res.statusCode, res.body.slice(0, 160));
    }
  }
});
