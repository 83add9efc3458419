/**
 * Markup that tries to run script once inserted as HTML (on top of the Markdown corpus in
 * xss-corpus.ts): mutation-XSS shapes that parse differently after serialisation, SVG and MathML
 * namespace tricks, `<base>`/`<meta>` hijacks and attribute injections. Each calls `alert()`, or
 * sets `window.__xss`, if it ever runs.
 */
export const HTML_XSS: readonly string[] = [
  '<img src=x onerror="window.__xss=1;alert(1)">',
  '<svg><script>alert(1)</script></svg>',
  '<svg><animate onbegin=alert(1) attributeName=x dur=1s>',
  '<svg><a xlink:href="javascript:alert(1)"><text x="20" y="20">click</text></a></svg>',
  '<svg><use href="data:image/svg+xml,<svg id=x xmlns=http://www.w3.org/2000/svg><image href=1 onerror=alert(1) /></svg>#x" /></svg>',
  '<math><mtext><table><mglyph><style><img src=x onerror=alert(1)></style></mglyph></table></mtext></math>',
  '<form><math><mtext></form><form><mglyph><svg><mtext><style><path id="</style><img onerror=alert(1) src>">',
  '<noscript><p title="</noscript><img src=x onerror=alert(1)>">',
  '<svg></p><style><a id="</style><img src=1 onerror=alert(1)>">',
  '<xmp><p title="</xmp><img src=x onerror=alert(1)>">',
  '<template><img src=x onerror=alert(1)></template>',
  '<base href="javascript:alert(1)//">',
  '<meta http-equiv="refresh" content="0;url=javascript:alert(1)">',
  '<link rel="import" href="data:text/html,<script>alert(1)</script>">',
  '<embed src="data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==">',
  '<object data="data:text/html,<script>alert(1)</script>"></object>',
  '<iframe srcdoc="<script>parent.alert(1)</script>"></iframe>',
  '<a href="jav&#x09;ascript:alert(1)">tab</a>',
  '<a href=" javascript:alert(1)">space</a>',
  '<button formaction="javascript:alert(1)">go</button>',
  '<input autofocus onfocus=alert(1)>',
  '<video><source onerror="alert(1)"></video>',
  '<body onload=alert(1)>',
  '<div style="background:url(javascript:alert(1))">css url</div>',
  '<img srcset="x 1x, javascript:alert(1) 2x">',
  '<a href="#" id="__proto__" name="innerHTML">clobber</a><form id="purify"><input name="sanitize"></form>',
  '<details open ontoggle=alert(1)><summary>open</summary></details>',
  '<marquee onstart=alert(1)>m</marquee>',
  '<script src="data:text/javascript,alert(1)"></script>',
  '<img src="x" onerror=&#x61;&#x6c;&#x65;&#x72;&#x74;(1)>',
]
