// A workload with known allocation sites and known object lifetimes, for
// testing heapsift's agent end to end.  It prints its own ground truth
// as JSON on stdout: the exact bytes each site allocated (arrays only, so
// that sizes follow from the JVM's array layout: a 16-byte header with
// compressed class pointers, the elements, padding to 8), and what each
// site does with its objects, and how many objects each kept alive to the
// end and how many it dropped.
//
//   java SiteWorkload SECONDS HOLD_SECONDS [noretain]
//
// With "noretain" the retain site still allocates its arrays but drops
// them at once, like drop: a workload with no leak (heapsift report's
// tests), whose truth then says it kept nothing.
// It calls System.gc() every 500 ms (see the loop) so that deaths are
// seen promptly.
//
// Sites (each a method of its own, so that the allocating frame names it):
//   retain  byte[1024..4095], kept in a static list to the end (a leak)
//   drop    byte[2048..10239], dropped at once
//   hold    long[64..319], kept HOLD_SECONDS then dropped
//   churn   byte[16..271], dropped at once (many small objects)
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

public class SiteWorkload {
	static final List<byte[]> retained = new ArrayList<>();
	static final ArrayDeque<Object[]> held = new ArrayDeque<>();
	static long retainBytes, dropBytes, holdBytes, churnBytes;
	static long retainCount, dropCount, holdCount, churnCount;
	static volatile Object sink;

	static long arrayBytes(long elements, long elementSize) {
		long n = 16 + elements * elementSize;
		return (n + 7) & ~7L;
	}

	static boolean noRetain;

	static void retain(Random r) {
		int n = 1024 + r.nextInt(3072);
		if (noRetain)
			sink = new byte[n];
		else
			retained.add(new byte[n]);
		retainBytes += arrayBytes(n, 1);
		retainCount++;
	}

	static void drop(Random r) {
		int n = 2048 + r.nextInt(8192);
		sink = new byte[n];
		dropBytes += arrayBytes(n, 1);
		dropCount++;
	}

	static void hold(Random r, long now) {
		int n = 64 + r.nextInt(256);
		held.addLast(new Object[] {new long[n], now});
		holdBytes += arrayBytes(n, 8);
		holdCount++;
	}

	static void churn(Random r) {
		int n = 16 + r.nextInt(256);
		sink = new byte[n];
		churnBytes += arrayBytes(n, 1);
		churnCount++;
	}

	public static void main(String[] args) throws Exception {
		double seconds = Double.parseDouble(args[0]);
		double holdSeconds = Double.parseDouble(args[1]);
		noRetain = args.length > 2 && args[2].equals("noretain");
		long holdNanos = (long) (holdSeconds * 1e9);
		Random r = new Random(42);
		long start = System.nanoTime(), end = start + (long) (seconds * 1e9);
		long now, lastGc = start;
		int i = 0;

		while ((now = System.nanoTime()) < end) {
			// per round: about 120 KB retained, 1.2 MB dropped, 60 KB
			// held, 300 KB of small churn
			for (int k = 0; k < 48; k++)
				retain(r);
			for (int k = 0; k < 200; k++)
				drop(r);
			for (int k = 0; k < 40; k++)
				hold(r, now);
			for (int k = 0; k < 2000; k++)
				churn(r);
			while (!held.isEmpty() &&
			       now - (long) held.peekFirst()[1] >= holdNanos)
				held.removeFirst();
			// a steady pace: about 25 MB/s retained; -Xmx1g holds 8 s
			Thread.sleep(4);
			i++;
			// Young GCs do not reclaim what was promoted: a held
			// object that dies in the old generation is gone (and its
			// weak reference cleared) only when the old generation is
			// collected, which a roomy heap may never need.  A full GC
			// every 500 ms makes deaths visible within 500 ms.
			if (now - lastGc >= 500_000_000L) {
				System.gc();
				lastGc = now;
			}
		}
		// What each site keeps alive at the end and what it dropped,
		// for checking survivors.  A full GC after the last drop
		// clears the weak reference of every dropped object, so that
		// the agent finds all of them dead and nothing dropped is
		// still alive at VM death (without it, whatever was dropped
		// since the last System.gc() could be).
		sink = null;
		long holdKept = held.size();
		System.gc();
		System.out.printf(
			"{\"sites\": {\"SiteWorkload.retain\": %d, "
				+ "\"SiteWorkload.drop\": %d, \"SiteWorkload.hold\": %d, "
				+ "\"SiteWorkload.churn\": %d}, "
				+ "\"counts\": {\"SiteWorkload.retain\": %d, "
				+ "\"SiteWorkload.drop\": %d, \"SiteWorkload.hold\": %d, "
				+ "\"SiteWorkload.churn\": %d}, "
				+ "\"kept\": {\"SiteWorkload.retain\": %d, "
				+ "\"SiteWorkload.drop\": 0, \"SiteWorkload.hold\": %d, "
				+ "\"SiteWorkload.churn\": 0}, "
				+ "\"dropped\": {\"SiteWorkload.retain\": 0, "
				+ "\"SiteWorkload.drop\": %d, \"SiteWorkload.hold\": %d, "
				+ "\"SiteWorkload.churn\": %d}, "
				+ "\"hold_seconds\": %s, \"retained_at_end\": %d}%n",
			retainBytes, dropBytes, holdBytes, churnBytes, retainCount,
			dropCount, holdCount, churnCount, (long) retained.size(),
			holdKept, dropCount, holdCount - holdKept, churnCount, args[1],
			retained.size());
	}
}
