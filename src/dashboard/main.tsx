import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { App } from "./app.tsx";
import "./styles/base.css";
import "./styles/layout.css";
import "./styles/forms.css";
import "./styles/screens.css";
import "./styles/editors.css";
import "./styles/content.css";
import "./styles/narrow.css";

createRoot(document.getElementById("root")!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
