id=$(ext extensions create --name "Installed" --json | sed -E 's/.*"id":"([^"]+)".*/\\1/')
v=$(ext deploy my-ext --extension "$id" --version 1.0.0 --json | sed -E 's/.*"versionId":"([^"]+)".*/\\1/')
ext versions approve "$v" --json > /dev/null
ext installs add --extension "$id" --count 1000
ext installs show --extension "$id" --json
