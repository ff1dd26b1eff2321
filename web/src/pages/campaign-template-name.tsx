import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { ApiError } from '../api/http.ts';
import { templateQuery } from '../api/templates.ts';

/** The template a campaign sends, by its name (a link to it); said so when it was deleted since. */
export function TemplateName(props: { templateId: string }) {
  const { t } = useTranslation('campaign');
  const template = useQuery(templateQuery(props.templateId));
  if (template.isSuccess) return <Link to={`/templates/${props.templateId}`}>{template.data.name}</Link>;
  if (template.error instanceof ApiError && template.error.status === 404) return <span>{t('facts.templateGone')} <code>{props.templateId}</code></span>;
  return <Link to={`/templates/${props.templateId}`}>{t('facts.templateLoading')}</Link>;
}
