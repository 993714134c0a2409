package dev.orchestrate.jobs;

/** Threads that watch an agent must never keep the JVM alive after orchestrate is done. */
final class Daemon {

  private Daemon() {}

  static Thread start(String name, Runnable body) {
    Thread thread = new Thread(body, name);
    thread.setDaemon(true);
    thread.start();
    return thread;
  }
}
