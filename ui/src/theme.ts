// Light and dark themes: the system preference until the user picks one
// (the theme button, or View ▸ Theme, which can also go back to the system's).
import { useCallback, useEffect, useState } from "react";

export type Theme = "light" | "dark";
export type ThemeChoice = Theme | "system";
const KEY = "playbook-studio.theme";

function system(): Theme {
  return window.matchMedia?.("(prefers-color-scheme: dark)").matches ? "dark" : "light";
}

function initial(): Theme {
  const saved = localStorage.getItem(KEY);
  if (saved === "light" || saved === "dark") return saved;
  return system();
}

export function useTheme(): [Theme, () => void, (choice: ThemeChoice) => void] {
  const [theme, setTheme] = useState<Theme>(initial);
  useEffect(() => {
    document.documentElement.dataset.theme = theme;
  }, [theme]);
  const toggle = useCallback(() => {
    setTheme((t) => {
      const next = t === "dark" ? "light" : "dark";
      localStorage.setItem(KEY, next);
      return next;
    });
  }, []);
  const choose = useCallback((choice: ThemeChoice) => {
    if (choice === "system") localStorage.removeItem(KEY);
    else localStorage.setItem(KEY, choice);
    setTheme(choice === "system" ? system() : choice);
  }, []);
  return [theme, toggle, choose];
}
