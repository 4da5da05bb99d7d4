// The workload of heapsift diff's gate test (tests/cli/gate.sh): a fixed
// amount of work, as a CI job's test runs it, not a rate.
//
//   java GateWorkload MB SECONDS alpha=W beta=W gamma=W
//
// It allocates MB megabytes (10^6 bytes) of byte[] in all, spread
// evenly over about SECONDS (a millisecond's share at a time, then a
// sleep to the next millisecond, so that JFR's throttle, a budget of
// events per window of time, sees a steady rate), from three
// sites, one method each: each array's site is drawn at random with
// probability W / (sum of W) and its length from 256 to 2303, from a
// fixed seed, so that two runs with the same arguments allocate exactly
// the same arrays in the same order and differ only in how the JVM
// samples them.  Sites are drawn one array at a time, interleaved as an
// application's are, never in batches.  It prints its own ground truth
// as JSON on stdout: the exact bytes (a 16-byte header with compressed
// class pointers, the elements, padding to 8) and arrays of each site.
import java.util.Random;

public class GateWorkload {
	static volatile Object sink;
	static final String[] NAMES = {"alpha", "beta", "gamma"};
	static final long[] bytes = new long[3], counts = new long[3];

	static long arrayBytes(int n) {
		return (16 + n + 7) & ~7L;
	}

	static void alpha(int n) { sink = new byte[n]; bytes[0] += arrayBytes(n); counts[0]++; }
	static void beta(int n) { sink = new byte[n]; bytes[1] += arrayBytes(n); counts[1]++; }
	static void gamma(int n) { sink = new byte[n]; bytes[2] += arrayBytes(n); counts[2]++; }

	public static void main(String[] args) {
		// (the bytes of each site follow from the seed and W alone: the
		// pacing moves when an array is made, never which)
		long total = (long) (Double.parseDouble(args[0]) * 1e6), done = 0;
		double seconds = Double.parseDouble(args[1]);
		int[] w = new int[3];
		for (int a = 2; a < args.length; a++) {
			String[] kv = args[a].split("=");
			for (int i = 0; i < 3; i++)
				if (NAMES[i].equals(kv[0]))
					w[i] = Integer.parseInt(kv[1]);
		}
		int sum = w[0] + w[1] + w[2];
		Random rnd = new Random(41);
		long start = System.nanoTime();
		while (done < total) {
			// the bytes due by now; past them, wait for the clock
			double due = total * ((System.nanoTime() - start) / (seconds * 1e9));
			if (done >= due) {
				try {
					Thread.sleep(1);
				} catch (InterruptedException e) {
					return;
				}
				continue;
			}
			int r = rnd.nextInt(sum), n = 256 + rnd.nextInt(2048);
			if (r < w[0])
				alpha(n);
			else if (r < w[0] + w[1])
				beta(n);
			else
				gamma(n);
			done += arrayBytes(n);
		}
		StringBuilder b = new StringBuilder("{\"sites\": {");
		for (int i = 0; i < 3; i++)
			b.append(i > 0 ? ", " : "").append("\"GateWorkload.").append(NAMES[i])
				.append("\": {\"bytes\": ").append(bytes[i]).append(", \"arrays\": ")
				.append(counts[i]).append("}");
		System.out.println(b.append("}}"));
	}
}
