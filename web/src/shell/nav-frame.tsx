import { useEffect, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { NavLink, useLocation } from 'react-router';

/** A link of the navigation; `label` is a catalogue key (of `session`, or `namespace:key`). */
export interface NavItem { readonly to: string; readonly label: string; readonly end?: boolean }

/**
 * The frame every signed-in page shares: skip link, top bar, navigation (a disclosure
 * under 48rem wide), and the main landmark that receives focus on navigation.
 */
export function NavFrame(props: { brand: string; subtitle: ReactNode; nav: readonly NavItem[]; user: ReactNode; children: ReactNode }) {
  const { t } = useTranslation('session');
  const [open, setOpen] = useState(false);
  const location = useLocation();
  useEffect(() => setOpen(false), [location.pathname]);
  return (
    <div className="shell">
      <a className="skip-link" href="#main">{t('frame.skip')}</a>
      <header className="topbar">
        <button type="button" className="menu-toggle" aria-expanded={open} aria-controls="main-nav" onClick={() => setOpen(!open)}>
          <span aria-hidden="true">☰</span> {t('frame.menu')}
        </button>
        <div className="brand"><span className="logo" aria-hidden="true">✉</span>{props.brand}<span className="subtitle">{props.subtitle}</span></div>
        <div className="topbar-user">{props.user}</div>
      </header>
      <nav id="main-nav" aria-label={t('frame.nav')} className={open ? 'sidebar open' : 'sidebar'}>
        <ul>
          {props.nav.map((item) => (
            <li key={item.to}><NavLink to={item.to} end={item.end ?? false}>{t(item.label)}</NavLink></li>
          ))}
        </ul>
      </nav>
      <main id="main" tabIndex={-1}>{props.children}</main>
    </div>
  );
}
