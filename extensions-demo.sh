id=$(ext extensions create --name "Sound Board" --short-description "Short sounds" --json | sed -E 's/.*"id":"([^"]+)".*/\\1/')
ext extensions update "$id" --visibility public
ext extensions get "$id" --json
ext extensions list
ext extensions delete "$id"
