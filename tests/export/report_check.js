// Run by tests/cli/report_html.sh in headless Chromium at a 1400 px wide
// window, appended to a copy of heapsift's HTML report.  It writes one
// line a check into #hs-out ("ok ..." or "FAIL ..."), read from
// --dump-dom.  The rules are the reader's, not heapsift's: nothing wider
// than the window, every table inside its box, axis ticks at round
// values (a step of 1, 2 or 5 times a power of ten, counted in the unit
// the label names) and round times, increasing, and the flame graph as
// wide as its section.
(function () {
	var out = [];
	function ok(c, m) { out.push((c ? 'ok ' : 'FAIL ') + m); }
	function done() { document.getElementById('hs-out').textContent = out.join('\n') + '\nend\n'; }
	var prefix = { '': 1, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15 };
	// "50 MB", "1.5 GB/s", "0", "200": the value in bytes (or the count)
	function value(s) {
		var m = s.match(/^([0-9]+(?:\.[0-9]+)?)(?: ([kMGTP]?)B(?:\/s)?)?$/);
		return m ? +m[1] * prefix[m[2] || ''] : NaN;
	}
	// "23:16:48", "23:17", "23:16:48.250", "+30 s", "+2 min", "+1 h", "+500 ms": seconds
	function time(s) {
		var m = s.match(/^([0-9]{2}):([0-9]{2})(?::([0-9]{2})(?:\.([0-9]{3}))?)?$/);
		if (m) return +m[1] * 3600 + +m[2] * 60 + +(m[3] || 0) + +(m[4] || 0) / 1000;
		m = s.match(/^\+([0-9]+) (ms|s|min|h)$/);
		return m ? +m[1] * { ms: 0.001, s: 1, min: 60, h: 3600 }[m[2]] : NaN;
	}
	function round125(step) {
		var p = Math.pow(10, Math.floor(Math.log10(step) + 1e-9)), d = step / p;
		return [1, 2, 5, 10].some(function (x) { return Math.abs(d - x) < 1e-6; });
	}
	var roundTimes = [0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30,
		60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400];
	function steps(v) {
		var d = [];
		for (var i = 1; i < v.length; i++) d.push(v[i] - v[i - 1]);
		return d;
	}
	function run() {
		var W = window.innerWidth;
		ok(W === 1400, 'the window is ' + W + ' px wide');
		var sw = document.documentElement.scrollWidth;
		ok(sw <= W, 'the page is ' + sw + ' px wide, the window ' + W);
		var tables = [].slice.call(document.querySelectorAll('table'));
		ok(tables.length >= 1, tables.length + ' tables');
		tables.forEach(function (t, i) {
			var box = t.parentElement, sec = t.closest('section');
			ok(t.scrollWidth <= box.clientWidth && t.getBoundingClientRect().right <= sec.getBoundingClientRect().right + 0.5,
				'table ' + i + ' (' + t.rows[0].textContent.slice(0, 30) + '): ' + t.scrollWidth +
				' px in a box of ' + box.clientWidth + ' px');
		});
		var charts = [].slice.call(document.querySelectorAll('svg.chart'));
		ok(charts.length >= 1, charts.length + ' charts with axes');
		charts.forEach(function (c, k) {
			var name = 'chart ' + k + ' (' + c.querySelector('title').textContent + ')';
			var yl = [].slice.call(c.querySelectorAll('text.ytick')).map(function (e) { return e.textContent; });
			var yv = yl.map(value), yd = steps(yv);
			ok(yl.length >= 3 && yv[0] === 0 && yv.every(function (v) { return !isNaN(v); }) &&
				yd.every(function (d) { return d > 0 && Math.abs(d - yd[0]) < 1e-6 * yd[0]; }) && round125(yd[0]) &&
				yv.every(function (v) { return Math.abs(v / yd[0] - Math.round(v / yd[0])) < 1e-6; }),
				name + ': values ' + yl.join(', '));
			var ys = [].slice.call(c.querySelectorAll('text.ytick')).map(function (e) { return +e.getAttribute('y'); });
			ok(steps(ys).every(function (d) { return d < 0; }), name + ': values go up the axis');
			var xl = [].slice.call(c.querySelectorAll('text.xtick')).map(function (e) { return e.textContent; });
			var xv = xl.map(time), xd = steps(xv);
			ok(xl.length >= 2 && xv.every(function (v) { return !isNaN(v); }) &&
				xd.every(function (d) { return d > 0 && Math.abs(d - xd[0]) < 1e-6; }) &&
				roundTimes.some(function (r) { return Math.abs(r - xd[0]) < 1e-9; }) &&
				xv.every(function (v) { return Math.abs(v / xd[0] - Math.round(v / xd[0])) < 1e-6; }),
				name + ': times ' + xl.join(', '));
			var xs = [].slice.call(c.querySelectorAll('text.xtick')).map(function (e) { return +e.getAttribute('x'); });
			ok(steps(xs).every(function (d) { return d > 0; }), name + ': times go right');
			var r = c.getBoundingClientRect();
			ok(r.right <= c.parentElement.getBoundingClientRect().right + 0.5, name + ': inside its figure');
		});
		var f = document.querySelector('svg.flame');
		ok(!!f, 'a flame graph');
		if (f) {
			var fw = f.getBoundingClientRect().width, cw = f.parentElement.clientWidth;
			ok(Math.abs(fw - cw) < 1, 'the flame graph is ' + fw + ' px wide, its section ' + cw + ' px');
			var t = f.querySelector('g.fr text');
			var px = t ? parseFloat(getComputedStyle(t).fontSize) * fw / f.viewBox.baseVal.width : 0;
			ok(px >= 11, 'its labels are drawn at ' + px.toFixed(1) + ' px');
		}
		done();
	}
	document.fonts.ready.then(function () {
		try { run(); } catch (e) { ok(false, 'exception ' + e); done(); }
	});
})();
