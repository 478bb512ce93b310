/** A duration as every page says it: the same seconds read the same on Insights, the intake list and the workbench. */

/** A duration in seconds as people say it: `45 s`, `10 min`, `2 h`, `1.5 d`; `—` without one. */
export function spokenDuration(seconds: number | null): string {
  if (seconds === null) return '—';
  if (seconds < 60) return `${seconds} s`;
  if (seconds < 3600) return `${Math.round((seconds / 60) * 10) / 10} min`;
  if (seconds < 86_400) return `${Math.round((seconds / 3600) * 10) / 10} h`;
  return `${Math.round((seconds / 86_400) * 10) / 10} d`;
}
