package dev.orchestrate.workspace;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * Which checkout a runner works in, when several runners share one state: a random id kept in the
 * repository's git directory ({@code orchestrate-checkout}, made by the first run there), so that
 * every runner in one checkout (processes on one machine) has the same identity and two clones have
 * different ones, even at the same path on two machines. A copy of a clone made with its
 * {@code .git} keeps the id: delete the file in the copy and it gets one of its own.
 *
 * @param id    the identity
 * @param where {@code host:path} of the checkout's top, for people
 */
public record Checkout(String id, String where) {
  static final String FILE = "orchestrate-checkout";
  private static final Pattern ID = Pattern.compile("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");

  /**
   * The checkout of {@code repo} on {@code host}, its id made now if it has none.
   *
   * @throws UncheckedIOException when the id cannot be read or written
   */
  public static Checkout of(Repository repo, String host) {
    Path file = repo.commonDir().resolve(FILE);
    try {
      for (int tries = 0; tries < 3; tries++) {
        String id = read(file);
        if (id != null) {
          return new Checkout(id, host + ":" + repo.top());
        }
        if (Files.exists(file, LinkOption.NOFOLLOW_LINKS)) {
          throw new WorkspaceSetupException(file + " is not an identity orchestrate wrote (one line, a random id): "
              + "delete it, and the next run writes a new one");
        }
        // Written whole, then linked into place: link() fails when the file exists, so two runners
        // starting at once in one checkout end with the one id the first link left.
        Path tmp = Files.createTempFile(repo.commonDir(), FILE, ".tmp");
        try {
          Files.writeString(tmp, UUID.randomUUID() + "\n", StandardCharsets.UTF_8,
              StandardOpenOption.TRUNCATE_EXISTING);
          Files.createLink(file, tmp);
        } catch (java.nio.file.FileAlreadyExistsException raced) {
          // another runner's id is there now: read it
        } finally {
          Files.deleteIfExists(tmp);
        }
      }
      throw new IOException("it keeps changing");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read or write " + file + " (this checkout's identity)", e);
    }
  }

  private static String read(Path file) throws IOException {
    if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS) || Files.size(file) > 100) {
      return null;
    }
    String id = Files.readString(file, StandardCharsets.UTF_8).strip();
    return ID.matcher(id).matches() ? id : null;
  }
}
