import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import { addVerbs } from '../../cli/actions.js';
import { examples } from '../../cli/examples.js';
import { command as apply } from './apply.js';
import { command as create } from './create.js';
import { command as deleteVerb } from './delete.js';
import { command as exportVerb } from './export.js';
import { command as get } from './get.js';
import { command as health } from './health.js';
import { command as list } from './list.js';
import { command as rotateSecret } from './rotate-secret.js';
import { command as update } from './update.js';

/** Defines `webhooks list|get|create|update|delete|health|apply|export|rotate-secret`. */
export function register(program: CommandUnknownOpts): void {
  const webhooks = program
    .command('webhooks')
    .description('list, create, update and delete webhooks, apply a file that declares them (export writes one), or move one to a new signing secret')
    .addHelpText('after', examples('whsvc webhooks list', 'whsvc webhooks create --url https://example.com/hooks --events invoice.paid'));
  addVerbs(webhooks, list(), get(), create(), update(), deleteVerb(), health(), apply(), exportVerb(), rotateSecret());
}
