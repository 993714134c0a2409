package dev.orchestrate.cli;

/**
 * What {@code orchestrate --version} prints: the version from the jar manifest ({@code dev} when
 * run from classes) and the JVM. Apart from picocli's {@link VersionProvider}, so that {@link
 * FastPath} prints it without loading picocli (176 classes of the 307 {@code --version} loaded).
 */
final class Version {
  private Version() {
  }

  static String[] lines() {
    String v = Version.class.getPackage().getImplementationVersion();
    return new String[] {"orchestrate " + (v == null ? "dev" : v),
        "Java " + System.getProperty("java.version") + " (" + System.getProperty("java.vendor") + ")"};
  }
}
