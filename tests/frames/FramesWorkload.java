import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.Future;
import java.util.function.IntSupplier;
import java.util.function.Supplier;

/*
 * tests/cli/frames.sh's workload: allocation from lambdas, a proxy,
 * reflection, and threads of an executor, a ForkJoinPool and a plain
 * Thread, for about three seconds.  "java FramesWorkload SHIFT" first
 * makes SHIFT more pools, threads and lambdas that allocate nothing
 * (nearly), so that in a second JVM the same work runs under other
 * numbers: pool-1 becomes pool-(1+SHIFT), Thread-0 Thread-SHIFT, the
 * lambdas' classes other counters and addresses.  Each of the five
 * threads does about a fifth of the work, so that every thread, class
 * and main path holds a few percent of the bytes or more: each is paced
 * against the clock at RATE bytes a second (a millisecond's share, then
 * a sleep), so that a loaded machine, whose scheduler could give one
 * spinning thread a small part of the three seconds, still leaves each
 * its share, and JFR's throttle (300/s in profile.jfc) is not spent in
 * bursts.
 */
public class FramesWorkload {
	public interface Maker {
		Object make(int n);
	}

	static volatile Object keep;
	static final double RATE = 20e6;

	/* one() allocates about bytes each call: called until `until`,
	 * RATE bytes a second */
	static void paced(Runnable one, int bytes, long until) {
		long start = System.nanoTime(), done = 0, now;
		while ((now = System.nanoTime()) < until) {
			if (done >= RATE * ((now - start) / 1e9)) {
				try {
					Thread.sleep(1);
				} catch (InterruptedException e) {
					return;
				}
				continue;
			}
			one.run();
			done += bytes;
		}
	}

	static Object sink(int n) {
		return new byte[n];
	}

	public static Object viaReflection(int n) {
		return new long[n / 8];
	}

	public static void main(String[] a) throws Exception {
		int shift = a.length > 0 ? Integer.parseInt(a[0]) : 0;
		for (int i = 0; i < shift; i++) {
			Executors.newFixedThreadPool(1).shutdown();
			new ForkJoinPool(1).shutdown();
			Thread t = new Thread(() -> { });
			t.start();
			t.join();
		}
		if (shift > 0) {
			Runnable r1 = () -> { }, r2 = () -> { };
			Supplier<Object> r3 = () -> null;
			r1.run();
			r2.run();
			r3.get();
		}
		long until = System.nanoTime() + 3_000_000_000L;
		ExecutorService pool = Executors.newFixedThreadPool(2);
		ForkJoinPool fj = new ForkJoinPool(1);
		Maker proxy = (Maker) Proxy.newProxyInstance(
			Maker.class.getClassLoader(), new Class<?>[] {Maker.class},
			(p, m, args) -> sink((Integer) args[0]));
		Method refl = FramesWorkload.class.getMethod("viaReflection", int.class);
		Future<?> f1 = pool.submit(() -> paced(() -> keep = sink(4096), 4112, until));
		Future<?> f2 = pool.submit(() -> paced(() -> keep = sink(4096), 4112, until));
		int[] k = {0};
		Future<?> f3 = fj.submit(() -> paced(() -> {
			final int c = k[0]++;
			IntSupplier s = () -> c; /* a hidden class's instance */
			keep = s;
		}, 16, until));
		Thread plain = new Thread(() -> paced(() -> keep = new int[1024], 4112, until));
		plain.start();
		paced(() -> {
			Supplier<Object> s = () -> new byte[4096];
			keep = s.get();
			keep = proxy.make(1024);
			try {
				keep = refl.invoke(null, 1024);
			} catch (ReflectiveOperationException e) {
				throw new RuntimeException(e);
			}
		}, 4112 + 1040 + 1040, until);
		f1.get();
		f2.get();
		f3.get();
		plain.join();
		pool.shutdown();
		fj.shutdown();
	}
}
