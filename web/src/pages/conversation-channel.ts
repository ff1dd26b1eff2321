import { useTranslation } from 'react-i18next';

/** A channel as people write it in the chosen language: `SMS`, `WhatsApp`, `Email` / `Correo`. */
export function useChannelName(): (channel: string) => string {
  const { t } = useTranslation('conversations');
  return (channel) => (channel === 'sms' || channel === 'whatsapp' || channel === 'email' ? t(`channel.${channel}`) : channel);
}
