package dev.aorta.gpu;

import java.util.List;

/** A GPU library could not be loaded; says which, where it was looked for and how to point at it. */
public final class LibraryNotFoundException extends GpuException {
    public LibraryNotFoundException(String library, List<String> fileNames, List<String> tried, String envVar,
                                    Throwable lastError) {
        super(library + " not found: looked for " + String.join(" or ", fileNames) + " in "
                + (tried.isEmpty() ? "no directory" : String.join(", ", tried))
                + " and the system loader path" + (lastError == null ? "" : " (" + lastError.getMessage() + ")")
                + "; set " + envVar + "=/path/to/" + fileNames.get(0) + " to use a specific file", lastError);
    }
}
