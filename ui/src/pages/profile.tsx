import { admin } from "../api";
import { Code, Loading, TableHead, TableWrap, useTitle, when } from "../components";
import { useLoad } from "../hooks";

/**
 * The platform profile this emulator answers with (ext serve --profile): each entry in words, naming what the
 * platform does and what the spec says, and where it was seen. Without one, how to make one.
 */
export function ProfilePage() {
  const state = useLoad(() => admin((c) => c.GET("/_emulator/state")), []);
  useTitle("Platform profile");
  return (
    <>
      <h1>Platform profile</h1>
      <Loading state={state}>
        {(s) =>
          s.profile === null ? (
            <section aria-labelledby="none-h">
              <h2 id="none-h">No profile: the spec's answers</h2>
              <p>
                This emulator answers every request as the spec says. A profile makes it answer as the platform you
                observed does — another status, a field left out, renamed, added or of another type, another error code,
                a header missing or added — while its rules and state changes stay the spec's.
              </p>
              <p>
                Check the platform with your developer key and save what differs, run your tests against an emulator
                that answers so, and later check that the platform still does (docs/profiles.md, also in the npm
                package):
              </p>
              <Code
                label="profile commands"
                text={
                  "EXT_API_KEY=… ext conformance --target https://api.example.com/developer/v1 --save-profile platform.json\next exec --profile platform.json -- npm test\nEXT_API_KEY=… ext conformance --target https://api.example.com/developer/v1 --profile platform.json"
                }
              />
            </section>
          ) : (
            <>
              <dl class="facts">
                <div>
                  <dt>Loaded from</dt>
                  <dd>
                    <code>{s.profile.source}</code>
                  </dd>
                </div>
                <div>
                  <dt>Observed on</dt>
                  <dd>{s.profile.target ?? "—"}</dd>
                </div>
                <div>
                  <dt>Observed at</dt>
                  <dd>{when(s.profile.observedAt)}</dd>
                </div>
                <div>
                  <dt>Differences</dt>
                  <dd>{s.profile.entries.length}</dd>
                </div>
              </dl>
              <p>
                These answers are sent in the platform's shape; every other answer, every rule and every state change is
                the spec's. The request log shows the answers as they were sent, with these changes.
              </p>
              <section aria-labelledby="entries-h">
                <h2 id="entries-h">What changes</h2>
                <TableWrap label="Profile entries">
                  <TableHead columns={["Operation", "Answer", "Difference", "What the platform does", "Seen"]} />
                  <tbody>
                    {s.profile.entries.map((e, i) => (
                      <tr key={i}>
                        <td data-label="Operation">
                          <code>{e.operation}</code>
                        </td>
                        <td data-label="Answer">{e.answer}</td>
                        <td data-label="Difference">{e.difference}</td>
                        <td data-label="What the platform does">
                          <Words text={e.change} />
                        </td>
                        <td data-label="Seen">
                          <Words text={e.evidence} />
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </TableWrap>
              </section>
            </>
          )
        }
      </Loading>
    </>
  );
}

/** An entry's words: what the server quotes between backticks (a field, a code) is shown as code. */
function Words({ text }: { text: string }) {
  return (
    <>
      {text.split(/`([^`]*)`/).map((part, i) =>
        // Odd parts are the quoted ones.
        i % 2 === 1 ? <code key={i}>{part}</code> : part,
      )}
    </>
  );
}
