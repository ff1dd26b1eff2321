import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { Page } from '../components/page.tsx';

export function NotFoundPage() {
  const { t } = useTranslation('session');
  return (
    <Page title={t('notFound.title')}>
      <p>{t('notFound.text')} <Link to="/">{t('notFound.overview')}</Link></p>
    </Page>
  );
}
