/**
 * The built-in line icons beyond the few every page draws (icon-names.ts), and which emoji each
 * stands in for: loaded as a chunk of its own by the first icon a page shows that needs it, so a
 * page without icons does not carry their paths (own drawings on a 24×24 grid, stroked with
 * `currentColor`).
 */

export const PATHS: Readonly<Record<string, string>> = {
  home: 'M4 11l8-7 8 7M6 9.5V20h4.5v-5h3v5H18V9.5',
  settings: 'M12 8.5a3.5 3.5 0 1 0 0 7a3.5 3.5 0 1 0 0-7M12 2.5v3M12 18.5v3M2.5 12h3M18.5 12h3M5.3 5.3l2.1 2.1M16.6 16.6l2.1 2.1M5.3 18.7l2.1-2.1M16.6 7.4l2.1-2.1',
  dashboard: 'M4 4h7v9H4zM13 4h7v5h-7zM13 11h7v9h-7zM4 15h7v5H4z',
  bar_chart: 'M4 20h16M6.5 20V11M11 20V5M15.5 20v-7M20 20V9',
  show_chart: 'M3 17l5-6 4 3 5-7 4 4M3 20h18',
  table: 'M3.5 5h17v14h-17zM3.5 10h17M3.5 14.5h17M9.5 5v14',
  folder: 'M3 6.5h6.5l2 2H21V19H3z',
  person: 'M12 4a4 4 0 1 0 0 8a4 4 0 1 0 0-8M4.5 20.5c1-4 4-6 7.5-6s6.5 2 7.5 6',
  group: 'M9 5a3.2 3.2 0 1 0 0 6.4A3.2 3.2 0 1 0 9 5M3 19c.8-3.3 3.2-5 6-5s5.2 1.7 6 5M16 5.5a3 3 0 0 1 0 5.8M17.5 14.2c1.8.6 3 2.2 3.5 4.8',
  search: 'M10.5 4a6.5 6.5 0 1 0 0 13a6.5 6.5 0 1 0 0-13M15.3 15.3L20.5 20.5',
  info: 'M12 3a9 9 0 1 0 0 18a9 9 0 1 0 0-18M12 11v6M12 7.5v.5',
  warning: 'M12 3.5L21.5 20h-19zM12 10v4.5M12 17v.5',
  error: 'M12 3a9 9 0 1 0 0 18a9 9 0 1 0 0-18M12 7.5v6M12 16.5v.5',
  check_circle: 'M12 3a9 9 0 1 0 0 18a9 9 0 1 0 0-18M8 12.5l2.8 2.8L16.5 9.5',
  check: 'M5 12.5l4.5 4.5L19 7.5',
  close: 'M6 6l12 12M18 6L6 18',
  menu: 'M4 7h16M4 12h16M4 17h16',
  star: 'M12 3.5l2.6 5.4 5.9.8-4.3 4.1 1 5.8L12 16.8l-5.2 2.8 1-5.8-4.3-4.1 5.9-.8z',
  favorite: 'M12 20s-7.5-4.6-8.5-9.5C2.8 7 5 4.5 7.8 4.5c1.8 0 3.2 1 4.2 2.5 1-1.5 2.4-2.5 4.2-2.5 2.8 0 5 2.5 4.3 6C19.5 15.4 12 20 12 20z',
  thumb_up: 'M7.5 10.5v9.5H4v-9.5zM7.5 10.5l4-7c1.6 0 2.5 1.2 2.2 2.8l-.7 3.2h5.3c1.2 0 2 1.1 1.7 2.2l-1.8 6.3c-.3.9-1.1 1.5-2 1.5H7.5',
  thumb_down: 'M7.5 13.5V4H4v9.5zM7.5 13.5l4 7c1.6 0 2.5-1.2 2.2-2.8l-.7-3.2h5.3c1.2 0 2-1.1 1.7-2.2l-1.8-6.3c-.3-.9-1.1-1.5-2-1.5H7.5',
  chat: 'M4 5h16v11H9l-5 4z',
  mail: 'M3.5 6h17v12h-17zM3.5 6.5l8.5 6.5 8.5-6.5',
  calendar_today: 'M4 6h16v14H4zM4 10h16M8 3.5v4M16 3.5v4',
  schedule: 'M12 3a9 9 0 1 0 0 18a9 9 0 1 0 0-18M12 7v5.5l3.5 2',
  upload: 'M12 16V4M7 9l5-5 5 5M4.5 19.5h15',
  download: 'M12 4v12M7 11l5 5 5-5M4.5 19.5h15',
  link: 'M10 14a4 4 0 0 0 5.7 0l3-3a4 4 0 0 0-5.7-5.7l-1 1M14 10a4 4 0 0 0-5.7 0l-3 3a4 4 0 0 0 5.7 5.7l1-1',
  rocket_launch: 'M14 4.5c3-1.5 5.5-1 5.5-1s.5 2.5-1 5.5l-6 6-4.5-4.5zM9 10.5l-4 .5-2 3 4 .5M13.5 15l-.5 4-3 2-.5-4M6.5 16.5l-2 3',
  lightbulb: 'M9 18h6M10 21h4M12 3a6 6 0 0 0-3.5 10.9V16h7v-2.1A6 6 0 0 0 12 3',
  sentiment_very_dissatisfied: 'M12 3a9 9 0 1 0 0 18a9 9 0 1 0 0-18M8.5 9.5l2 1M15.5 9.5l-2 1M8 17c1-2 2.3-3 4-3s3 1 4 3',
  sentiment_dissatisfied: 'M12 3a9 9 0 1 0 0 18a9 9 0 1 0 0-18M9 10v.5M15 10v.5M8.5 16.5c1-1.3 2.2-2 3.5-2s2.5.7 3.5 2',
  sentiment_neutral: 'M12 3a9 9 0 1 0 0 18a9 9 0 1 0 0-18M9 10v.5M15 10v.5M8.5 15.5h7',
  sentiment_satisfied: 'M12 3a9 9 0 1 0 0 18a9 9 0 1 0 0-18M9 10v.5M15 10v.5M8.5 14.5c1 1.3 2.2 2 3.5 2s2.5-.7 3.5-2',
  sentiment_very_satisfied: 'M12 3a9 9 0 1 0 0 18a9 9 0 1 0 0-18M8.5 10.5l1-1.5 1 1.5M13.5 10.5l1-1.5 1 1.5M7.5 13.5h9c-.5 2.5-2.3 4-4.5 4s-4-1.5-4.5-4z',
  play_arrow: 'M8 5v14l11-7z',
  picture_as_pdf: 'M6 3h8l4 4v14H6zM14 3v4h4M9 13h1.5a1.5 1.5 0 0 1 0 3H9v-4.5',
  image: 'M4 5h16v14H4zM4 16l5-5 4 4 2.5-2.5L20 17M15 8.5v.5',
}

/** Emoji svc itself uses or that are common page icons → the built-in icon that stands in for them. */
export const EMOJI: Readonly<Record<string, string>> = {
  '🏠': 'home', '🏡': 'home', '⚙️': 'settings', '⚙': 'settings', '🛠️': 'settings', '📊': 'bar_chart', '📈': 'show_chart',
  '📉': 'show_chart', '🗂️': 'folder', '📁': 'folder', '📂': 'folder', '📄': 'description', '📝': 'description', '📃': 'description',
  '📋': 'table', '🧮': 'table', '👤': 'person', '🙂': 'sentiment_satisfied', '😀': 'sentiment_very_satisfied', '😃': 'sentiment_very_satisfied',
  '😞': 'sentiment_very_dissatisfied', '🙁': 'sentiment_dissatisfied', '😐': 'sentiment_neutral', '😊': 'sentiment_satisfied',
  '👥': 'group', '🔍': 'search', '🔎': 'search', 'ℹ️': 'info', 'ℹ': 'info', '⚠️': 'warning', '⚠': 'warning', '❌': 'error', '🚨': 'error',
  '✅': 'check_circle', '✔️': 'check', '⭐': 'star', '🌟': 'star', '❤️': 'favorite', '👍': 'thumb_up', '👎': 'thumb_down',
  '💬': 'chat', '✉️': 'mail', '📧': 'mail', '📅': 'calendar_today', '📆': 'calendar_today', '⏰': 'schedule', '🕒': 'schedule',
  '⬆️': 'upload', '⬇️': 'download', '⤓': 'download', '🔗': 'link', '🚀': 'rocket_launch', '💡': 'lightbulb', '☀️': 'light_mode',
  '🌙': 'dark_mode', '🖼️': 'image', '🎵': 'play_arrow', '🎬': 'play_arrow', '📕': 'picture_as_pdf',
}
