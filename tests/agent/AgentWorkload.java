// The workload tests/cli/agent.sh runs under libheapsift-agent.so.
//
//   java AgentWorkload basic          a mix of short-lived and kept objects,
//                                     a few System.gc() calls, then exits
//   java AgentWorkload threads N MB   N threads allocate MB megabytes each,
//                                     all at once, then exit
//   java AgentWorkload forever        allocates until it is killed
//   java AgentWorkload exit N         N threads allocate without end while
//                                     main calls System.exit(0) amid them
//   java AgentWorkload until FILE     allocates until FILE exists (an agent
//                                     attached later creates it), a while
//                                     longer, then exits
//   java AgentWorkload bench SECONDS  allocation throughput, for overhead
//                                     measurements: prints "ops N"
//
// Objects kept in KEEP live to the end, so their samples must come out
// ALIVE; the rest die young, so theirs must come out in DEATHS.
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

public class AgentWorkload {
    static final List<Object> KEEP = new ArrayList<>();
    static volatile Object sink;

    static Object garbage(int i) {
        switch (i % 4) {
        case 0:
            return new byte[256 + (i % 4096)];
        case 1:
            return "string " + i + " " + Integer.toHexString(i * 31);
        case 2: {
            Map<Integer, int[]> m = new HashMap<>();
            for (int k = 0; k < 8; k++)
                m.put(k, new int[16]);
            return m;
        }
        default:
            return new long[64];
        }
    }

    static void basic() {
        for (int round = 0; round < 4; round++) {
            for (int i = 0; i < 200_000; i++) {
                Object o = garbage(i);
                if (i % 1000 == 0)
                    KEEP.add(new byte[8192]); // survives to the end
                sink = o;
            }
            System.gc();
        }
        System.out.println("kept " + KEEP.size());
    }

    static void threads(int n, int mb) throws InterruptedException {
        CountDownLatch go = new CountDownLatch(1);
        Thread[] ts = new Thread[n];
        for (int t = 0; t < n; t++) {
            ts[t] = new Thread(() -> {
                try {
                    go.await();
                } catch (InterruptedException e) {
                    return;
                }
                long bytes = (long) mb << 20;
                for (long done = 0; done < bytes; done += 1040)
                    sink = new byte[1024];
            }, "alloc-" + t);
            ts[t].start();
        }
        go.countDown();
        for (Thread t : ts)
            t.join();
    }

    static void exitAmid(int n) {
        for (int t = 0; t < n; t++) {
            Thread th = new Thread(() -> {
                for (int i = 0;; i++)
                    sink = garbage(i);
            }, "busy-" + t);
            th.setDaemon(true);
            th.start();
        }
        for (int i = 0; i < 100_000; i++)
            sink = garbage(i);
        System.exit(0);
    }

    static void forever() {
        for (long i = 0;; i++) {
            sink = garbage((int) i);
            if (i % 5000 == 0)
                KEEP.add(new byte[1024]);
            if (KEEP.size() > 10_000)
                KEEP.clear();
        }
    }

    static void until(String path) {
        java.io.File f = new java.io.File(path);
        System.out.println("waiting");
        System.out.flush();
        for (long i = 0; !f.exists(); i++)
            sink = garbage((int) i);
        for (int round = 0; round < 3; round++) {
            for (int i = 0; i < 200_000; i++) {
                sink = garbage(i);
                if (i % 1000 == 0)
                    KEEP.add(new byte[8192]);
            }
            System.gc();
        }
    }

    static void bench(double seconds) {
        long end = System.nanoTime() + (long) (seconds * 1e9), ops = 0;
        while (System.nanoTime() < end) {
            for (int i = 0; i < 10_000; i++)
                sink = garbage(i);
            ops += 10_000;
        }
        System.out.println("ops " + ops);
    }

    public static void main(String[] args) throws Exception {
        switch (args.length > 0 ? args[0] : "basic") {
        case "threads":
            threads(Integer.parseInt(args[1]), Integer.parseInt(args[2]));
            break;
        case "exit":
            exitAmid(Integer.parseInt(args[1]));
            break;
        case "forever":
            forever();
            break;
        case "until":
            until(args[1]);
            break;
        case "bench":
            bench(Double.parseDouble(args[1]));
            break;
        default:
            basic();
        }
    }
}
