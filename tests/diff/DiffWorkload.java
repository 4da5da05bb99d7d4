// A workload whose allocation sites allocate at rates set on the command
// line, for testing heapsift diff: two runs with the same rates but one
// are two recordings of one workload in which exactly one site changed.
//
//   java DiffWorkload SECONDS alpha=KBPS beta=KBPS gamma=KBPS delta=KBPS
//
// A site given 0 (or not given) allocates nothing: it is absent from the
// run.  Each site allocates byte[256..2303] (random sizes from a fixed
// seed) and drops them at once, paced against the clock: at every step
// each site has allocated rate * elapsed bytes, whatever the scheduler
// did, so a site's bytes per second are the same in every run and only
// the sampling differs.  It prints its own ground truth as JSON on
// stdout: the exact bytes and arrays each site allocated (arrays only:
// a 16-byte header with compressed class pointers, the elements,
// padding to 8) and for how long it ran.
//
// With keep=1 among the arguments each site keeps every array it made
// (a list per site) until the end, which then runs System.gc(): its
// live set at the end is what it allocated, for comparing survivors.
import java.util.ArrayList;
import java.util.Random;

public class DiffWorkload {
	static volatile Object sink;
	static final String[] NAMES = {"alpha", "beta", "gamma", "delta"};
	static final long[] bytes = new long[4], counts = new long[4];
	static final Random rnd = new Random(7);
	static boolean keep;
	// keep=1: a list per site, sized for the runs the fixtures make so
	// that it never grows (made only then: other runs allocate as before)
	@SuppressWarnings("unchecked")
	static final ArrayList<Object>[] kept = new ArrayList[4];

	static long arrayBytes(int n) {
		return (16 + n + 7) & ~7L;
	}

	// one method per site, so that the allocating frame names it
	static void alpha() { int n = 256 + rnd.nextInt(2048); sink = new byte[n]; bytes[0] += arrayBytes(n); counts[0]++; }
	static void beta() { int n = 256 + rnd.nextInt(2048); sink = new byte[n]; bytes[1] += arrayBytes(n); counts[1]++; }
	static void gamma() { int n = 256 + rnd.nextInt(2048); sink = new byte[n]; bytes[2] += arrayBytes(n); counts[2]++; }
	static void delta() { int n = 256 + rnd.nextInt(2048); sink = new byte[n]; bytes[3] += arrayBytes(n); counts[3]++; }

	static void site(int i) {
		switch (i) {
		case 0: alpha(); break;
		case 1: beta(); break;
		case 2: gamma(); break;
		default: delta(); break;
		}
		if (keep)
			kept[i].add(sink);
	}

	public static void main(String[] args) throws Exception {
		double seconds = Double.parseDouble(args[0]);
		double[] rate = new double[4]; // bytes per second
		for (int a = 1; a < args.length; a++) {
			String[] kv = args[a].split("=");
			if (kv[0].equals("keep"))
				keep = !kv[1].equals("0");
			for (int i = 0; i < 4; i++)
				if (NAMES[i].equals(kv[0]))
					rate[i] = Double.parseDouble(kv[1]) * 1000;
		}
		for (int i = 0; keep && i < 4; i++)
			kept[i] = new ArrayList<>(1 << 16);
		long start = System.nanoTime(), end = start + (long) (seconds * 1e9);
		long now;
		while ((now = System.nanoTime()) < end) {
			double elapsed = (now - start) / 1e9;
			for (int i = 0; i < 4; i++)
				while (bytes[i] < rate[i] * elapsed)
					site(i);
			Thread.sleep(2);
		}
		double ran = (System.nanoTime() - start) / 1e9;
		if (keep)
			System.gc();
		StringBuilder b = new StringBuilder("{\"seconds\": " + ran + ", \"sites\": {");
		for (int i = 0; i < 4; i++)
			b.append(i > 0 ? ", " : "").append("\"DiffWorkload.").append(NAMES[i])
				.append("\": {\"bytes\": ").append(bytes[i]).append(", \"arrays\": ")
				.append(counts[i]).append(", \"rate\": ").append(rate[i]).append("}");
		System.out.println(b.append("}}"));
	}
}
