import java.io.FileWriter;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;

/**
 * Where a short command's main thread spends its start-up (docs/benchmarks.md, "Fourth pass"): runs
 * {@code dev.orchestrate.Main} with the given arguments while a daemon thread records the main
 * thread's stack about every half millisecond, and at exit appends one line per sample to the file
 * named by {@code -Dsampler.out}, the frames from the outermost in, separated by {@code ;} (the
 * "folded" format flame-graph tools read). A JFR recording costs more than the command it records;
 * this costs one thread and a handshake per sample, and it sees the interpreted code perf cannot
 * name. It does not see the JVM's own start before {@code main}, nor the compiler thread.
 *
 * <pre>
 * javac -cp target/orchestrate.jar -d /tmp/sampler src/bench/MainThreadSampler.java
 * # the launcher's JVM options (bin/lib/platform.sh, with the archive), the jar first on the class path:
 * for i in $(seq 20); do java OPTIONS -Dsampler.out=/tmp/samples -cp target/orchestrate.jar:/tmp/sampler \
 *   MainThreadSampler --state STATE status --json >/dev/null; done
 * # the share of the samples with a frame in them, e.g. sqlite-jdbc's temp-directory sweep:
 * awk -v f='SQLiteJDBCLoader.cleanup;' 'index($0, f) { n++ } END { print n / NR }' /tmp/samples
 * </pre>
 */
public final class MainThreadSampler {
  private MainThreadSampler() {
  }

  public static void main(String[] args) throws Exception {
    Thread main = Thread.currentThread();
    List<StackTraceElement[]> samples = new ArrayList<>();
    Thread sampler = new Thread(() -> {
      while (true) {
        StackTraceElement[] stack = main.getStackTrace();
        synchronized (samples) {
          samples.add(stack);
        }
        try {
          Thread.sleep(0, 500_000);
        } catch (InterruptedException e) {
          return;
        }
      }
    }, "sampler");
    sampler.setDaemon(true);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> write(samples, System.getProperty("sampler.out"))));
    sampler.start();
    dev.orchestrate.Main.main(args);
  }

  private static void write(List<StackTraceElement[]> samples, String file) {
    try (PrintWriter out = new PrintWriter(new FileWriter(file, true))) {
      synchronized (samples) {
        for (StackTraceElement[] stack : samples) {
          StringBuilder line = new StringBuilder();
          for (int i = stack.length - 1; i >= 0; i--) {
            line.append(stack[i].getClassName()).append('.').append(stack[i].getMethodName()).append(';');
          }
          out.println(line);
        }
      }
    } catch (IOException e) {
      System.err.println("sampler: cannot write " + file + ": " + e.getMessage());
    }
  }
}
