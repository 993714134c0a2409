package dev.orchestrate.backlog;

import dev.orchestrate.cli.Cli;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The live heap a run holds per backlog item, measured in the JVM this main runs in (started by
 * {@link HeapPerItemTest} with a fixed heap and collector, or by hand: docs/benchmarks.md, "Memory
 * per item"). It runs {@code orchestrate run --cap 1} twice, on a backlog of 10 items and on one of
 * {@code ITEMS}, with an agent that waits until the heap has been measured: a full collection while
 * the first agent runs, so that everything the run holds for its items is live. The difference,
 * divided by the difference in items, is printed as {@code heap-bytes-per-item N}.
 *
 * <p>Usage: {@code RunHeapProbe DIR ITEMS}
 */
public final class RunHeapProbe {
  private static final int SMALL = 10;

  private RunHeapProbe() {
  }

  public static void main(String[] args) throws Exception {
    Path dir = Path.of(args[0]);
    int items = Integer.parseInt(args[1]);
    long small = heapDuringRun(dir.resolve("small"), SMALL);
    long large = heapDuringRun(dir.resolve("large"), items);
    System.out.println("heap-bytes-small-run " + small);
    System.out.println("heap-bytes-large-run " + large);
    System.out.println("heap-bytes-per-item " + (large - small) / (items - SMALL));
  }

  /** The heap used after a full collection while the first agent of a run over {@code items} items runs. */
  private static long heapDuringRun(Path dir, int items) throws Exception {
    Files.createDirectories(dir);
    Path started = dir.resolve("started");
    Path go = dir.resolve("go");
    Path agent = Files.writeString(dir.resolve("agent.sh"), "touch '" + started + "'\n"
        + "while [ ! -f '" + go + "' ]; do sleep 0.02; done\ncat >/dev/null\nexit 0\n");
    Path config = Files.writeString(dir.resolve("orchestrate.yaml"), """
        agent:
          command: ["sh", "%s"]
          timeout: 5m
        default_pipeline: one
        pipelines:
          one:
            phases:
              - name: work
                instructions: "Do the work."
        """.formatted(agent));
    Path backlog = dir.resolve("backlog.yaml");
    try (Writer out = Files.newBufferedWriter(backlog)) {
      out.write("items:\n");
      for (int i = 1; i <= items; i++) {
        out.write(String.format("  - {id: I%07d, title: item %d}%n", i, i));
      }
    }
    AtomicLong used = new AtomicLong(-1);
    Thread measure = new Thread(() -> {
      try {
        long deadline = System.nanoTime() + 300_000_000_000L;
        while (!Files.exists(started) && System.nanoTime() < deadline) {
          Thread.sleep(20);
        }
        if (Files.exists(started)) {
          used.set(usedAfterFullCollection());
        }
        Files.createFile(go);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    });
    measure.start();
    int code = Cli.execute(new String[] {"--quiet", "--state", dir.resolve("state").toString(), "--config",
        config.toString(), "run", backlog.toString(), "--cap", "1"}, System.getenv());
    measure.join();
    if (code != 0 || used.get() < 0) {
      throw new IllegalStateException("the run of " + items + " items exited " + code + " (heap measured: "
          + (used.get() >= 0) + ")");
    }
    return used.get();
  }

  private static long usedAfterFullCollection() throws InterruptedException {
    long used = Long.MAX_VALUE;
    for (int i = 0; i < 4; i++) {
      System.gc();
      Thread.sleep(50);
      used = Math.min(used, ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed());
    }
    return used;
  }
}
