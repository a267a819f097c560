/**
 * The script embedded in every flame graph SVG, so the file works on its own (opened from disk or
 * served by /debug/prof): hover shows a frame's details, click zooms to a frame (its ancestors
 * stay, stretched, below it), the search box highlights frames whose name or file matches a
 * regular expression and reports the share of the total they cover.
 *
 * Each frame is `<g class="f" data-x data-w data-d data-n>` holding a `<title>`, a `<rect>` and a
 * `<text>`: `data-x`/`data-w` are its start and width as fractions of the whole graph, `data-d`
 * its depth, `data-n` its full label. Layout constants arrive as `data-*` on the root `<svg>`.
 */
export const FLAMEGRAPH_SCRIPT = `
(function () {
  var svg = document.documentElement;
  var width = Number(svg.getAttribute('data-width'));
  var pad = Number(svg.getAttribute('data-pad'));
  var charPx = 7;
  var frames = Array.prototype.slice.call(document.querySelectorAll('g.f'));
  var details = document.getElementById('details');
  var matched = document.getElementById('matched');
  var zoom = { x: 0, w: 1 };

  function fit(g, px) {
    var text = g.querySelector('text');
    var full = g.getAttribute('data-n');
    var chars = Math.floor((px - 6) / charPx);
    text.textContent = chars < 3 ? '' : full.length <= chars ? full : full.slice(0, chars - 2) + '..';
  }

  function layout() {
    var span = width - 2 * pad;
    frames.forEach(function (g) {
      var x = Number(g.getAttribute('data-x'));
      var w = Number(g.getAttribute('data-w'));
      var start = Math.max(x, zoom.x);
      var end = Math.min(x + w, zoom.x + zoom.w);
      if (end - start <= 1e-12) {
        g.setAttribute('display', 'none');
        return;
      }
      g.removeAttribute('display');
      var px = ((end - start) / zoom.w) * span;
      var left = pad + ((start - zoom.x) / zoom.w) * span;
      var rect = g.querySelector('rect');
      rect.setAttribute('x', left.toFixed(2));
      rect.setAttribute('width', Math.max(0, px - 0.5).toFixed(2));
      g.querySelector('text').setAttribute('x', (left + 3).toFixed(2));
      fit(g, px);
    });
    document.getElementById('reset').setAttribute('opacity', zoom.w < 1 ? '1' : '0.3');
  }

  function zoomTo(g) {
    zoom = { x: Number(g.getAttribute('data-x')), w: Number(g.getAttribute('data-w')) };
    svg.setAttribute('data-zoom', zoom.x + ' ' + zoom.w);
    layout();
  }

  frames.forEach(function (g) {
    g.addEventListener('click', function (event) {
      event.stopPropagation();
      zoomTo(g);
    });
    g.addEventListener('mouseover', function () {
      details.textContent = g.querySelector('title').textContent;
    });
    g.addEventListener('mouseout', function () {
      details.textContent = ' ';
    });
  });
  document.getElementById('reset').addEventListener('click', function () {
    zoom = { x: 0, w: 1 };
    svg.removeAttribute('data-zoom');
    layout();
  });

  function search(term) {
    var re = null;
    if (term !== '') {
      try {
        re = new RegExp(term, 'i');
      } catch (e) {
        re = new RegExp(term.replace(/[.*+?^$()|[\\]{}\\\\]/g, '\\\\$&'), 'i');
      }
    }
    var spans = [];
    frames.forEach(function (g) {
      var rect = g.querySelector('rect');
      var hit = re !== null && re.test(g.getAttribute('data-n') + ' ' + g.querySelector('title').textContent);
      rect.setAttribute('fill', hit ? '#e040fb' : g.getAttribute('data-c'));
      if (hit) spans.push([Number(g.getAttribute('data-x')), Number(g.getAttribute('data-w'))]);
    });
    // Nested matches cover the same samples: merge the intervals before summing.
    spans.sort(function (a, b) { return a[0] - b[0]; });
    var covered = 0;
    var end = -1;
    spans.forEach(function (s) {
      var from = Math.max(s[0], end);
      if (s[0] + s[1] > from) covered += s[0] + s[1] - from;
      end = Math.max(end, s[0] + s[1]);
    });
    matched.textContent = re === null ? ' ' : 'Matched: ' + (100 * covered).toFixed(2) + '%';
  }
  var input = document.getElementById('search');
  if (input) input.addEventListener('input', function () { search(input.value); });
  layout();
})();
`;
