import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { Link, useLocation } from 'react-router';
import { acceptInvitation, invitationQuery } from '../api/auth.ts';
import { AuthCard } from '../components/auth-card.tsx';
import { QueryState } from '../components/query-state.tsx';
import { SetPasswordForm } from '../components/set-password-form.tsx';

/** Following an invitation link: choose a password, and be signed in. */
export default function InvitationPage() {
  const { t } = useTranslation('session');
  const token = decodeURIComponent(useLocation().hash.slice(1));
  const invitation = useQuery({ ...invitationQuery(token), enabled: token !== '' });
  return (
    <AuthCard title={t('invitation.title')} footer={<Link to="/sign-in">{t('invitation.signInInstead')}</Link>}>
      {token === '' ? <p className="state error" role="alert">{t('invitation.incomplete')}</p> : (
      <QueryState query={invitation}>
        {(found) => (
          <SetPasswordForm setPassword={(password) => acceptInvitation(token, password)}>
            <p>{t('invitation.invited', { account: found.account_name, role: t(`role.${found.role}`), email: found.email })}</p>
            <input type="email" name="username" autoComplete="username" value={found.email} readOnly hidden />
          </SetPasswordForm>
        )}
      </QueryState>
      )}
    </AuthCard>
  );
}
