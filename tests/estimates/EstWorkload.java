// A workload with exact per-site byte truth, for checking heapsift's
// estimates of JFR recordings (docs/estimates.md, tests/cli/estimates.sh).
//
//   java EstWorkload SECONDS [SEED [WORK]]
//
// WORK (default 40) is how many rounds of arithmetic come between two
// allocations: it sets the allocation rate (about 1 GB/s at 40 here), which
// decides how JFR's throttle spreads its samples (at several GB/s most of
// the bytes fall on the first sample of each throttle window).
//
// One thread allocates byte arrays from five sites, each a method of its
// own so that the allocating frame names it, in fixed proportions of the
// bytes, and prints on stdout, as JSON, the exact bytes and arrays each
// site allocated (a byte[n] takes 16 + n bytes rounded up to 8, with
// compressed class pointers, which a heap under 32 GB has):
//   small4k   byte[4096], most of the bytes
//   small1k   byte[1024], a few of them kept in a ring (live longer)
//   small2k   byte[2048]
//   big400k   byte[409600]: larger than most TLABs
//   big2m     byte[2097152]: one large size, always outside a TLAB
// The order of the sites is random (SEED), so that which small object
// follows a large one changes from run to run, as in real programs.
import java.util.Random;

public class EstWorkload {
	static volatile Object sink;
	static final Object[] ring = new Object[4096];
	static int ringAt;
	static final long[] bytes = new long[5];
	static final long[] count = new long[5];
	static final String[] names = {"small4k", "small1k", "small2k",
				       "big400k", "big2m"};

	static long arrayBytes(long n) {
		return (16 + n + 7) & ~7L;
	}

	static void small4k() {
		sink = new byte[4096];
		bytes[0] += arrayBytes(4096);
		count[0]++;
	}

	static void small1k() {
		byte[] b = new byte[1024];
		ring[ringAt++ & (ring.length - 1)] = b;
		bytes[1] += arrayBytes(1024);
		count[1]++;
	}

	static void small2k() {
		sink = new byte[2048];
		bytes[2] += arrayBytes(2048);
		count[2]++;
	}

	static void big400k() {
		sink = new byte[409600];
		bytes[3] += arrayBytes(409600);
		count[3]++;
	}

	static void big2m() {
		sink = new byte[2097152];
		bytes[4] += arrayBytes(2097152);
		count[4]++;
	}

	static long spin(int rounds, long x) {
		for (int k = 0; k < rounds; k++)
			x = x * 6364136223846793005L + 1442695040888963407L;
		return x;
	}

	public static void main(String[] args) throws Exception {
		long seconds = Long.parseLong(args[0]);
		long seed = args.length > 1 ? Long.parseLong(args[1]) : 1;
		int work = args.length > 2 ? Integer.parseInt(args[2]) : 40;
		long x = seed;
		Random r = new Random(seed);
		long end = System.nanoTime() + seconds * 1000000000L;
		int i = 0;

		// draws out of 10^7 chosen for shares of the bytes of about
		// 70% (4k), 9% (1k), 9% (2k), 7% (400k) and 5% (2m)
		while (true) {
			if ((i++ & 255) == 0 && System.nanoTime() >= end)
				break;
			x = spin(work, x);
			int d = r.nextInt(10000000);
			if (d < 5663663)
				small4k();
			else if (d < 8542796)
				small1k();
			else if (d < 9993521)
				small2k();
			else if (d < 9999207)
				big400k();
			else
				big2m();
		}
		StringBuilder sb = new StringBuilder("{\"sites\": {");
		for (int k = 0; k < 5; k++)
			sb.append(k > 0 ? ", " : "").append('"').append(names[k])
				.append("\": {\"bytes\": ").append(bytes[k])
				.append(", \"arrays\": ").append(count[k]).append('}');
		sb.append("}, \"spin\": ").append(x & 1).append('}');
		System.out.println(sb);
	}
}
