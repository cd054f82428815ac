id=$(ext extensions create --name "Limited" --json | sed -E 's/.*"id":"([^"]+)".*/\\1/')
ext limits show --extension "$id"
