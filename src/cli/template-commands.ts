import { accountExists } from '../app/account-view.ts';
import { createWhatsappTemplate, NewWhatsappTemplateBody } from '../app/create-whatsapp-template.ts';
import { listEmailTemplatesOf } from '../app/email-templates.ts';
import { listWhatsappTemplatesOf } from '../app/list-whatsapp-templates.ts';
import { checkOperatorInput } from '../domain/admin-input.ts';
import { reject } from '../domain/result.ts';
import { choiceFlag, compact, printed, printedAs, storeCommand } from './command-kit.ts';
import * as human from './human-output.ts';

// `templates list` (email and WhatsApp) and `whatsapp-templates add`.

const CHANNELS = ['email', 'whatsapp'] as const;

export const templateList = storeCommand({
  usage: 'templates list ACCOUNT_ID [--channel email|whatsapp] [--json]',
  summary: 'An account\'s email and WhatsApp templates (--channel: one kind only)',
  positionals: ['ACCOUNT_ID'],
  options: { channel: { type: 'string' } },
  async run(deps, [accountId = ''], values) {
    const channel = choiceFlag(values, 'channel', CHANNELS);
    if (!(await accountExists(deps, accountId))) return reject('notFound');
    const email = channel === 'whatsapp' ? undefined : await listEmailTemplatesOf(deps, accountId);
    const whatsapp = channel === 'email' ? undefined : await listWhatsappTemplatesOf(deps, accountId);
    return printed(compact({ email, whatsapp }), [
      ...(email === undefined ? [] : human.emailTemplateListText(email)),
      ...(whatsapp === undefined ? [] : human.whatsappTemplateListText(whatsapp)),
    ]);
  },
});

export const whatsappTemplateAdd = storeCommand({
  usage: 'whatsapp-templates add ACCOUNT_ID --name NAME --body "Hi {{1}}" [--language en_US] [--status APPROVED|PENDING|REJECTED] [--json]',
  summary: 'Record a WhatsApp template the account may send',
  positionals: ['ACCOUNT_ID'],
  options: { name: { type: 'string' }, body: { type: 'string' }, language: { type: 'string' }, status: { type: 'string' } },
  flagOf: { name: 'name', body: 'body', language: 'language', status: 'status' },
  async run(deps, [accountId = ''], values) {
    const input = checkOperatorInput(NewWhatsappTemplateBody, compact({
      name: values.name, body: values.body, language: values.language, status: values.status,
    }));
    if (!input.ok) return input;
    return printedAs(await createWhatsappTemplate(deps, accountId, input.value), human.templateText);
  },
});
