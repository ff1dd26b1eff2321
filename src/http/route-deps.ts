import type { Logger } from 'pino';
import type { AdminTokenCheck } from '../app/admin-token.ts';
import type { ApiRequestLog } from '../app/api-request-log.ts';
import type { LiveFeed } from '../app/live-feed.ts';
import type { AuthDeps } from '../app/sessions.ts';
import type { WebhookUrlCheck } from '../app/webhook-settings.ts';
import type { SubmissionEndpoint } from '../domain/submission-endpoint.ts';
import type { AttemptThrottle } from './plugins/attempt-throttle.ts';
import type { AccountRateLimiter } from './plugins/rate-limit.ts';
import type { HttpTimeouts } from './client-connections.ts';

// The one dependencies type of the HTTP layer: buildApp takes it, and every route
// function takes it whole (the use cases' own deps are `app`), so no route imports
// app.ts or declares a shape of its own.

/** Why this process should get no traffic now (a stalled delivery loop, say); undefined when nothing stands in the way. */
export type ReadinessCheck = () => string | undefined;

export interface RouteDeps {
  readonly app: AuthDeps;
  readonly adminToken: AdminTokenCheck;
  /** Guesses of passwords, codes and tokens, resets and invitations, slowed with progressive delays. */
  readonly attemptThrottle: AttemptThrottle;
  readonly rateLimiter: AccountRateLimiter;
  readonly logger: Logger | false;
  readonly trustProxy: boolean | number | string;
  readonly bodyLimitBytes: number;
  /** Largest contact import body (HERALD_IMPORT_BODY_LIMIT): imports are streamed into the store, not parsed in memory. */
  readonly importBodyLimitBytes: number;
  /** Inbound Cloud API webhook: the app secret that signs it and the registration token. */
  readonly whatsappWebhook: { readonly appSecret: string | undefined; readonly verifyToken: string | undefined };
  /** The private-address guard for webhook URLs an account sets (HERALD_FETCH_ALLOW_PRIVATE lifts it). */
  readonly checkWebhookUrl: WebhookUrlCheck;
  /** A worker process: only /healthz and /readyz, for orchestrators' health checks. */
  readonly healthOnly?: boolean;
  /** What /readyz checks beyond the database (a worker's delivery loop). */
  readonly readiness?: ReadinessCheck;
  /** Headers, whole-request and keep-alive time-outs (HERALD_HTTP_*). */
  readonly timeouts: HttpTimeouts;
  /** Where applications send by SMTP (GET /v1/smtp-settings); undefined while submission is off. Asked per request: ports are known once bound. */
  readonly submission: () => SubmissionEndpoint | undefined;
  /** This process's buffer of the requests each key makes, flushed by the job `api-requests-flush` (service.ts). */
  readonly apiRequestLog: ApiRequestLog;
  /** The process's live feed (GET /v1/events/stream); absent: the process serves no streams. */
  readonly liveFeed?: LiveFeed;
  /** The built web application served at /app; absent: web/dist of this tree. */
  readonly webRoot?: string;
}
