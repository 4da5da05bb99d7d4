// Run by tests/cli/flame_svg.sh in headless Chromium, in a page that
// holds heapsift's flame graph SVG inline after `var EXPECT = {...}`
// (the totals the JDK's `jfr` gives, the kind, the recording's name, a
// search pattern).  It writes one line a check into #out ("ok ..." or
// "FAIL ..."), which the suite reads from --dump-dom.  What it expects
// is computed here from the drawing's geometry and the names, never
// read from heapsift's own answers: the share of a search is summed
// from the matched frames that no matched frame contains.
(function () {
	var out = [], s = document.getElementById('flame');
	function ok(c, m) { out.push((c ? 'ok ' : 'FAIL ') + m); }
	function done() { document.getElementById('out').textContent = out.join('\n') + '\nend\n'; }
	if (!s) { ok(false, 'no svg#flame'); done(); return; }
	var fr = [].slice.call(s.querySelectorAll('g.fr'));
	function name(g) { return g.querySelector('title').textContent.split('\n')[0]; }
	function num(e, a) { return +e.getAttribute(a); }
	function geom() {
		return fr.map(function (g) {
			var r = g.querySelector('rect'), t = g.querySelector('text');
			return [g.style.display, r.getAttribute('x'), r.getAttribute('width'),
				t.getAttribute('x'), t.textContent].join('|');
		});
	}
	// every label inside its rectangle: less 3 px each side
	function fits(what) {
		var bad = [], texts = 0;
		fr.forEach(function (g) {
			if (g.style.display === 'none') return;
			var r = g.querySelector('rect'), t = g.querySelector('text');
			var len = t.getComputedTextLength();
			if (t.textContent) texts++;
			if (t.textContent && len > num(r, 'width') - 6 + 0.01)
				bad.push(name(g) + ' (' + len.toFixed(1) + ' > ' + r.getAttribute('width') + ')');
		});
		ok(!bad.length, what + ': every label fits its frame (' + texts + ' labels)' +
			(bad.length ? ': ' + bad.slice(0, 3).join('; ') : ''));
		return texts;
	}
	function run() {
		var head = [].slice.call(s.children).filter(function (e) {
			return e.tagName === 'text';
		}).map(function (e) { return e.textContent; });
		var all = head.join('\n');
		ok(head[0].indexOf(EXPECT.kind) >= 0 && /\bbytes\b/.test(head[0]),
			'the title names the kind and the unit: ' + head[0]);
		var m = all.match(/Total [^(]*\(([0-9,]+) bytes\) in ([0-9,]+) samples/);
		ok(m && +m[1].replace(/,/g, '') === EXPECT.bytes,
			'the total is jfr\'s sum of the weights, ' + EXPECT.bytes + ': ' + (m && m[0]));
		ok(m && +m[2].replace(/,/g, '') === EXPECT.samples,
			'the samples are jfr\'s count of events, ' + EXPECT.samples);
		ok(all.indexOf(EXPECT.recording) >= 0 && /\d{4}-\d\d-\d\dT\d\d:\d\d/.test(all),
			'the recording is named with its start');
		ok(/application/.test(all) && /JDK \/ library/.test(all) && /native \/ VM/.test(all) &&
			/allocated class/.test(all), 'the legend names the kinds of frames');

		// labels: cut by heapsift alone, not by the script (data-refit)
		ok(s.getAttribute('data-refit') === '0',
			'no label needed cutting in the browser (data-refit ' + s.getAttribute('data-refit') + ')');
		var n = fits('as drawn');
		ok(n >= 10, n + ' frames carry a label');
		// a name that does not fit loses its package first
		function short(n) {
			var i = n.indexOf(':'), head = i < 0 ? n : n.slice(0, i), p = head.split('.');
			return p.length < 3 ? n : p.slice(-2).join('.') + (i < 0 ? '' : n.slice(i));
		}
		var cut = fr.filter(function (g) { return /\u2026$/.test(g.querySelector('text').textContent); });
		ok(cut.length > 0 && cut.every(function (g) {
			var t = g.querySelector('text').textContent.slice(0, -1);
			return short(name(g)).indexOf(t) === 0;
		}), cut.length + ' labels cut with an ellipsis, each the start of its name without the package');
		// colours: frames of the JDK and of the application apart
		var lib = fr.filter(function (g) { return /^(java|javax|jdk|sun|com\.sun)\./.test(name(g)); });
		var app = fr.filter(function (g, i) { return i && !/^(java|javax|jdk|sun|com\.sun)\./.test(name(g)); });
		function fills(a) { var o = {}; a.forEach(function (g) { o[g.querySelector('rect').getAttribute('fill')] = 1; }); return o; }
		var lf = fills(lib), af = fills(app);
		ok(lib.length && app.length && Object.keys(lf).every(function (c) { return !af[c]; }),
			'library frames (' + lib.length + ') and application frames (' + app.length + ') share no colour');

		// search: the frames whose name matches are highlighted, and the
		// share said is the sum of the matched frames no other matched
		// frame contains
		var before = geom();
		var share = window.flameSearch(EXPECT.pattern), re = new RegExp(EXPECT.pattern);
		var hit = fr.filter(function (g) { return re.test(name(g)); });
		var hl = fr.filter(function (g) { return g.classList.contains('hl'); });
		ok(hit.length > 0 && hit.length === hl.length && hit.every(function (g) { return g.classList.contains('hl'); }),
			'search ' + EXPECT.pattern + ' highlights the ' + hit.length + ' frames it matches (' + hl.length + ')');
		function depth(g) { return num(g.querySelector('rect'), 'y'); }
		var sum = 0;
		hit.forEach(function (f) {
			var x = num(f, 'data-x'), w = num(f, 'data-w');
			var inside = hit.some(function (g) {
				return depth(g) < depth(f) && num(g, 'data-x') <= x + 1e-9 &&
					x + w <= num(g, 'data-x') + num(g, 'data-w') + 1e-9;
			});
			if (!inside) sum += w;
		});
		var said = (s.querySelector('.fmatch').textContent.match(/Matched: ([0-9.]+)%/) || [])[1];
		ok(Math.abs(share - sum) < 1e-5 && said === (100 * sum).toFixed(2),
			'the matched share is the sum of the outermost matches: ' + said + '% (' + (100 * sum).toFixed(4) + '%)');
		window.flameSearch('');
		ok(!s.querySelector('g.hl'), 'an empty search clears the highlight');
		ok(JSON.stringify(geom()) === JSON.stringify(before), 'search moves nothing');

		// zoom on a frame that is not the whole width, then reset
		var z = fr.filter(function (g) { return num(g, 'data-w') < 0.5 && num(g, 'data-w') > 0.02; })[0];
		ok(!!z, 'a frame to zoom on');
		if (z) {
			z.dispatchEvent(new MouseEvent('click', { bubbles: true }));
			var zw = num(z.querySelector('rect'), 'width');
			ok(Math.abs(zw - (1200 - 0.5)) < 0.01, 'a click widens ' + name(z) + ' to the whole width (' + zw + ')');
			ok(JSON.stringify(geom()) !== JSON.stringify(before), 'the zoom moved the frames');
			fits('zoomed');
			var reset = s.querySelector('.freset');
			ok(getComputedStyle(reset).visibility === 'visible', 'Reset zoom is shown where scripts run');
			reset.dispatchEvent(new MouseEvent('click', { bubbles: true }));
			var after = geom(), diff = after.filter(function (a, i) { return a !== before[i]; });
			ok(!diff.length, 'Reset zoom puts every frame back' + (diff.length ? ': ' + diff[0] : ''));
		}
		done();
	}
	try {
		document.fonts.ready.then(function () {
			try { run(); } catch (e) { ok(false, 'exception ' + e); done(); }
		});
	} catch (e) { ok(false, 'exception ' + e); done(); }
})();
