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
 * and main path holds a few percent of the bytes or more.
 */
public class FramesWorkload {
	public interface Maker {
		Object make(int n);
	}

	static volatile Object keep;

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
		Future<?> f1 = pool.submit(() -> {
			while (System.nanoTime() < until)
				keep = sink(4096);
		});
		Future<?> f2 = pool.submit(() -> {
			while (System.nanoTime() < until)
				keep = sink(4096);
		});
		Future<?> f3 = fj.submit(() -> {
			int k = 0;
			while (System.nanoTime() < until) {
				final int c = k++;
				IntSupplier s = () -> c; /* a hidden class's instance */
				keep = s;
			}
		});
		Thread plain = new Thread(() -> {
			while (System.nanoTime() < until)
				keep = new int[1024];
		});
		plain.start();
		while (System.nanoTime() < until) {
			Supplier<Object> s = () -> new byte[4096];
			keep = s.get();
			keep = proxy.make(1024);
			keep = refl.invoke(null, 1024);
		}
		f1.get();
		f2.get();
		f3.get();
		plain.join();
		pool.shutdown();
		fj.shutdown();
	}
}
