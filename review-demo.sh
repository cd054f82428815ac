id=$(ext extensions create --name "Reviewed" --json | sed -E 's/.*"id":"([^"]+)".*/\\1/')
v1=$(ext deploy my-ext --extension "$id" --version 1.0.0 --json | sed -E 's/.*"versionId":"([^"]+)".*/\\1/')
v2=$(ext deploy my-ext --extension "$id" --version 1.0.1 --json | sed -E 's/.*"versionId":"([^"]+)".*/\\1/')
ext versions approve "$v1"
ext versions reject "$v2" --reason "Sounds are clipped."
ext versions list --extension "$id"
