// Entry: language, routing and the session around the app.
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import './styles/app.css';
import { I18nProvider } from './i18n/index.js';
import { RouterProvider } from './lib/router.js';
import { SessionRoot } from './session-root.js';

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <I18nProvider>
      <RouterProvider>
        <SessionRoot />
      </RouterProvider>
    </I18nProvider>
  </StrictMode>,
);
