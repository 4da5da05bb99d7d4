// An allocation-heavy workload for measuring sampling overhead: threads
// allocate objects of mixed sizes (mostly small, as real programs do)
// and keep a sliding window of them alive, for a fixed time after a
// warm-up; it prints the allocation throughput (operations per second).
//
//   java AllocBench THREADS WARMUP_SECONDS SECONDS
import java.util.concurrent.atomic.LongAdder;

public class AllocBench {
	static final LongAdder ops = new LongAdder();
	static volatile boolean counting, stop;

	public static void main(String[] args) throws Exception {
		int threads = Integer.parseInt(args[0]);
		double warm = Double.parseDouble(args[1]), secs = Double.parseDouble(args[2]);
		Thread[] t = new Thread[threads];

		for (int i = 0; i < threads; i++) {
			final long seed = 1234 + i;
			t[i] = new Thread(() -> {
				Object[] window = new Object[4096];
				long x = seed, n = 0;
				while (!stop) {
					// xorshift: no allocation in the generator
					x ^= x << 13;
					x ^= x >>> 7;
					x ^= x << 17;
					int r = (int) (x & 0x3ff);
					Object o;
					if (r < 700)
						o = new byte[16 + (r & 63)];
					else if (r < 950)
						o = new long[8 + (r & 31)];
					else if (r < 1020)
						o = new StringBuilder(32 + (r & 127)).append(x);
					else
						o = new byte[4096 + (int) ((x >>> 20) & 8191)];
					window[(int) (x >>> 40) & 4095] = o;
					if (counting && (++n & 1023) == 0)
						ops.add(1024);
				}
			}, "alloc-" + i);
			t[i].start();
		}
		Thread.sleep((long) (warm * 1000));
		counting = true;
		long t0 = System.nanoTime();
		Thread.sleep((long) (secs * 1000));
		long done = ops.sum();
		double s = (System.nanoTime() - t0) / 1e9;
		stop = true;
		for (Thread th : t)
			th.join();
		System.out.printf("%.0f%n", done / s);
	}
}
