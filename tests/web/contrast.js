// The contrast ratio (WCAG 2) of each visible element matching `selector` against the
// background it is drawn on: the ancestors' background colours composed, from the element
// up to the first opaque one; on a gradient every colour stop counts and the worst is kept.
// Evaluated in the page by tests/web/test_lobby_and_replay.py.
(selector) => {
  const WHITE = { r: 255, g: 255, b: 255, a: 1 };
  const parse = (text) => {
    const found = text.match(/rgba?\(([^)]+)\)/);
    if (!found) return null;
    const [r, g, b, a = 1] = found[1].split(/[\s,/]+/).filter(Boolean).map(Number);
    return { r, g, b, a };
  };
  const over = (top, under) => ({
    r: top.r * top.a + under.r * (1 - top.a),
    g: top.g * top.a + under.g * (1 - top.a),
    b: top.b * top.a + under.b * (1 - top.a),
    a: 1,
  });
  const channel = (v) => {
    const c = v / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  const luminance = (c) => 0.2126 * channel(c.r) + 0.7152 * channel(c.g) + 0.0722 * channel(c.b);
  const ratio = (x, y) => {
    const [hi, lo] = [luminance(x), luminance(y)].sort((p, q) => q - p);
    return (hi + 0.05) / (lo + 0.05);
  };
  // `layers` (nearest first) laid over `base`.
  const compose = (layers, base) => layers.reduceRight((under, layer) => over(layer, under), base);
  const grounds = (node) => {
    const layers = [];
    for (let n = node; n; n = n.parentElement) {
      const style = getComputedStyle(n);
      const stops = [...style.backgroundImage.matchAll(/rgba?\([^)]+\)/g)].map((m) => parse(m[0]));
      if (stops.length) return stops.map((stop) => compose(layers, over(stop, WHITE)));
      const colour = parse(style.backgroundColor);
      if (colour && colour.a > 0) {
        layers.push(colour);
        if (colour.a >= 1) return [compose(layers.slice(0, -1), colour)];
      }
    }
    return [compose(layers, WHITE)];
  };
  const where = (node) => `${node.tagName.toLowerCase()}.${node.className} in .${node.parentElement.className}`;
  return [...document.querySelectorAll(selector)]
    .filter((node) => node.getClientRects().length && node.textContent.trim())
    .map((node) => {
      const ink = parse(getComputedStyle(node).color);
      const worst = Math.min(...grounds(node).map((ground) => ratio(over(ink, ground), ground)));
      return { text: node.textContent.trim().slice(0, 40), where: where(node), ratio: Math.round(worst * 100) / 100 };
    });
}
