/*
 * Unit tests for src/query/normalize.c: each rule on names as JVMs write
 * them.  The inputs are names seen in recordings (JDK 17's JFR writes
 * FramesWorkload$$Lambda$93+0x00007f4e94017000/1016925085 and
 * jdk.proxy2.$Proxy26, tests/cli/frames.sh's workload), the forms the
 * JDK's sources give (InnerClassLambdaMetafactory's "$$Lambda$" + a
 * counter before JDK 21, "$$Lambda" and the hidden suffix "/0x.." after;
 * Proxy's jdk.proxyN and com.sun.proxy packages; reflection's
 * GeneratedMethodAccessorN), and names no rule may touch; the expected
 * forms are the rules as docs/export.md states them.
 */
#include <string.h>

#include "query/normalize.h"
#include "test.h"
#include "util/buf.h"

/* rule(in) is want, and says it changed iff in != want */
static void is(bool (*rule)(const char *, struct buf *), const char *in,
	       const char *want)
{
	struct buf b = BUF_INIT;
	bool changed = rule(in, &b);

	CHECK_STR(b.data, want);
	CHECK(changed == (strcmp(in, want) != 0));
	buf_release(&b);
}

static void class_is(const char *in, const char *want)
{
	is(normalize_class, in, want);
}

static void thread_is(const char *in, const char *want)
{
	is(normalize_thread, in, want);
}

static void frame_is(const char *in, const char *want)
{
	is(normalize_frame, in, want);
}

TEST(normalize_hidden_class_suffixes)
{
	/* JDK 17's JFR: '+' and the address, then '/' and JFR's number */
	class_is("FramesWorkload$$Lambda$93+0x00007f4e94017000/1016925085",
		 "FramesWorkload$$Lambda");
	/* JDK 21+: no counter, the hidden suffix as Class.getName() */
	class_is("com.example.Foo$$Lambda/0x000001234",
		 "com.example.Foo$$Lambda");
	class_is("Foo$$Lambda$123/0x0000000801234567", "Foo$$Lambda");
	/* JDK 8's VM-anonymous classes: an identity hash */
	class_is("Foo$$Lambda$123/1234567", "Foo$$Lambda");
	/* any hidden class, not only lambdas */
	class_is("java.lang.invoke.LambdaForm$MH/0x0000000800c0c400",
		 "java.lang.invoke.LambdaForm$MH");
	class_is("java.lang.invoke.LambdaForm$DMH+0x00007f4e9400a000",
		 "java.lang.invoke.LambdaForm$DMH");
	/* an array of them keeps its brackets */
	class_is("Foo$$Lambda$7/0x0000000800c03000[]", "Foo$$Lambda[]");
}

TEST(normalize_proxies_and_accessors)
{
	class_is("jdk.proxy2.$Proxy26", "$Proxy");
	class_is("jdk.proxy1.$Proxy0", "$Proxy");
	class_is("com.sun.proxy.$Proxy7", "$Proxy");
	class_is("$Proxy12", "$Proxy");
	/* a package-private interface's proxy stays in its package */
	class_is("com.example.$Proxy3", "com.example.$Proxy");
	class_is("jdk.internal.reflect.GeneratedMethodAccessor12",
		 "jdk.internal.reflect.GeneratedMethodAccessor");
	class_is("sun.reflect.GeneratedConstructorAccessor3",
		 "sun.reflect.GeneratedConstructorAccessor");
	class_is("jdk.internal.reflect.GeneratedSerializationConstructor"
		 "Accessor5",
		 "jdk.internal.reflect.GeneratedSerializationConstructor"
		 "Accessor");
	class_is("com.example.Service$$EnhancerByCGLIB$$abc123",
		 "com.example.Service$$EnhancerByCGLIB");
	class_is("com.example.Service$$EnhancerBySpringCGLIB$$5f1e2d3c",
		 "com.example.Service$$EnhancerBySpringCGLIB");
	class_is("com.example.Service$$SpringCGLIB$$0",
		 "com.example.Service$$SpringCGLIB");
	class_is("com.example.Order$HibernateProxy$Zx8kQ2aB",
		 "com.example.Order$HibernateProxy");
}

TEST(normalize_leaves_stable_names)
{
	/* a compiler's numbers are the same in every run of one build */
	class_is("java.lang.String", "java.lang.String");
	class_is("byte[]", "byte[]");
	class_is("java.util.HashMap$Node[]", "java.util.HashMap$Node[]");
	class_is("com.example.Foo$1", "com.example.Foo$1");
	class_is("java.lang.invoke.LambdaForm$Name",
		 "java.lang.invoke.LambdaForm$Name");
	class_is("com.example.Proxy2", "com.example.Proxy2");
	class_is("com.example.$Proxy", "com.example.$Proxy");
	class_is("Foo$$Lambda", "Foo$$Lambda");
	class_is("com.example.Dollar$$Thing$$12",
		 "com.example.Dollar$$Thing$$12");
	class_is("", "");
}

TEST(normalize_frames_keep_method_and_line)
{
	frame_is("FramesWorkload$$Lambda$95+0x00007f4e94017440/313540687.get",
		 "FramesWorkload$$Lambda.get");
	frame_is("jdk.proxy2.$Proxy26.make", "$Proxy.make");
	frame_is("FramesWorkload.lambda$main$7:30",
		 "FramesWorkload.lambda$main$7:30");
	frame_is("com.sun.proxy.$Proxy7.invoke:12", "$Proxy.invoke:12");
	frame_is("(no stack)", "(no stack)");
}

TEST(normalize_thread_numbers)
{
	thread_is("pool-3-thread-17", "pool-N-thread-N");
	thread_is("ForkJoinPool-1-worker-3", "ForkJoinPool-N-worker-N");
	thread_is("ForkJoinPool.commonPool-worker-12",
		  "ForkJoinPool.commonPool-worker-N");
	thread_is("Thread-12", "Thread-N");
	thread_is("http-nio-8080-exec-4", "http-nio-N-exec-N");
	thread_is("GC Thread#0", "GC Thread#N");
	thread_is("RMI TCP Connection(3)-127.0.0.1",
		  "RMI TCP Connection(N)-N.N.N.N");
	/* digits right after a letter belong to the word */
	thread_is("C1 CompilerThread0", "C1 CompilerThread0");
	thread_is("C2 CompilerThread0", "C2 CompilerThread0");
	thread_is("G1 Main Marker", "G1 Main Marker");
	thread_is("main", "main");
	thread_is("JFR Periodic Tasks", "JFR Periodic Tasks");
	thread_is("", "");
}
