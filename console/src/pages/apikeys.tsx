// API keys: list, create (the secret is shown once), revoke. Revoking the key in use signs the console out.
import { useState } from "preact/hooks";

import {
  type ApiKeysQuery,
  ApiKeysDocument,
  type ApiKeyState,
  CreateApiKeyDocument,
  RevokeApiKeyDocument,
  type Role,
} from "../generated/graphql";
import { useSession } from "../session";
import {
  Badge,
  EditForm,
  FormErrors,
  LoadError,
  PageHeader,
  Pager,
  SelectField,
  TextField,
  useCursorPages,
  useLoad,
  useMutation,
  when,
} from "../ui";
import { SpaceOptionsError, spaceChoices, useSpaceOptions } from "./tools";

const PAGE_SIZE = 50;
type Key = ApiKeysQuery["apiKeys"]["edges"][number]["node"];

function stateTone(state: ApiKeyState): string {
  return state === "ACTIVE" ? "good" : "bad";
}

export function ApiKeysPage() {
  const { api, can, viewer } = useSession();
  const [state, setState] = useState<ApiKeyState | "">("ACTIVE");
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<{ id: string; secret: string } | null>(null);
  const pages = useCursorPages(state);
  const keys = useLoad(
    () => api.request(ApiKeysDocument, { first: PAGE_SIZE, after: pages.after, state: state || null }),
    [state, pages.after],
  );
  const connection = keys.data?.apiKeys;
  return (
    <>
      <PageHeader title="API keys">
        {can.manageSome && !creating && (
          <button type="button" class="primary" onClick={() => setCreating(true)}>
            Create API key
          </button>
        )}
      </PageHeader>
      <dl class="facts">
        <dt>Signed in with</dt>
        <dd>
          <code>{viewer.keyId}</code> {viewer.keyLabel ? `“${viewer.keyLabel}”` : ""} ({viewer.role})
        </dd>
      </dl>
      {!can.manageSome && <p>Only ADMIN and SPACE_ADMIN keys manage keys; ask one of them for another key.</p>}
      {creating && (
        <CreateKey
          onDone={(result) => {
            setCreating(false);
            if (result) {
              setCreated(result);
              keys.reload();
            }
          }}
        />
      )}
      {created && (
        <div class="notice secret" role="status">
          <p>
            Key <code>{created.id}</code> created. Copy its secret now: it is shown only this once and is not stored.
          </p>
          <label for="new-secret">Secret</label>
          <input id="new-secret" readOnly value={created.secret} onFocus={(event) => event.currentTarget.select()} />
          <div class="buttons">
            <button type="button" onClick={() => void navigator.clipboard?.writeText(created.secret)}>
              Copy secret
            </button>
            <button type="button" onClick={() => setCreated(null)}>
              Done
            </button>
          </div>
        </div>
      )}
      {can.manageSome && (
        <>
          <form class="filters" aria-label="Filter keys" onSubmit={(event) => event.preventDefault()}>
            <SelectField
              label="State"
              name="state"
              value={state}
              onChange={setState}
              options={[["", "Any state"], ["ACTIVE", "Active"], ["EXPIRED", "Expired"], ["REVOKED", "Revoked"]]}
            />
          </form>
          <LoadError error={keys.error} retry={keys.reload} />
          {connection && (
            <>
              <table>
                <caption class="sr-only">API keys</caption>
                <thead>
                  <tr>
                    <th scope="col">Label</th>
                    <th scope="col">Id</th>
                    <th scope="col">Role</th>
                    <th scope="col">Space</th>
                    <th scope="col">Created</th>
                    <th scope="col">Expires</th>
                    <th scope="col">Last used</th>
                    <th scope="col">State</th>
                    <th scope="col">Action</th>
                  </tr>
                </thead>
                <tbody>
                  {connection.edges.map(({ node }) => (
                    <KeyRow key={node.id} apiKey={node} isCurrent={node.id === viewer.keyId} onChanged={keys.reload} />
                  ))}
                </tbody>
              </table>
              {connection.edges.length === 0 && <p class="empty">No key in this state.</p>}
              <Pager label="API keys" pages={pages} pageSize={PAGE_SIZE} connection={connection} />
            </>
          )}
        </>
      )}
    </>
  );
}

function KeyRow({ apiKey, isCurrent, onChanged }: { apiKey: Key; isCurrent: boolean; onChanged: () => void }) {
  const { api } = useSession();
  const [confirming, setConfirming] = useState(false);
  const mutation = useMutation();
  const name = apiKey.label ?? apiKey.id;
  const revoke = async () => {
    const payload = await mutation.run(async () => (await api.request(RevokeApiKeyDocument, { input: { id: apiKey.id } })).revokeApiKey);
    setConfirming(false);
    if (payload) onChanged();
  };
  return (
    <tr>
      <td>
        {apiKey.label ?? "—"} {isCurrent && <Badge tone="busy">in use here</Badge>}
      </td>
      <td>
        <code>{apiKey.id}</code>
      </td>
      <td>{apiKey.role}</td>
      <td>{apiKey.space?.name ?? "every space"}</td>
      <td>{when(apiKey.createdAt)}</td>
      <td>{when(apiKey.expiresAt)}</td>
      <td>{when(apiKey.lastUsedAt)}</td>
      <td>
        <Badge tone={stateTone(apiKey.state)}>{apiKey.state}</Badge>
      </td>
      <td>
        {apiKey.state === "ACTIVE" &&
          (confirming ? (
            <div class="buttons">
              <span>{isCurrent ? "This signs the console out. " : ""}Revoke?</span>
              <button type="button" class="danger" onClick={revoke} disabled={mutation.busy}>
                Confirm revoke {name}
              </button>
              <button type="button" onClick={() => setConfirming(false)}>
                Keep
              </button>
            </div>
          ) : (
            <button type="button" onClick={() => setConfirming(true)} aria-label={`Revoke ${name}`}>
              Revoke
            </button>
          ))}
        <FormErrors errors={mutation.errors} fields={[]} />
      </td>
    </tr>
  );
}

function CreateKey({ onDone }: { onDone: (created: { id: string; secret: string } | null) => void }) {
  const { api, can, viewer } = useSession();
  const spaces = useSpaceOptions();
  const roles: Role[] = can.admin ? ["ADMIN", "SPACE_ADMIN", "MEMBER", "VIEWER"] : ["SPACE_ADMIN", "MEMBER", "VIEWER"];
  const [role, setRole] = useState<Role>("MEMBER");
  const [spaceId, setSpaceId] = useState(viewer.space?.id ?? "");
  const [label, setLabel] = useState("");
  const [expiresAt, setExpiresAt] = useState("");
  const mutation = useMutation();
  const firstSpace = spaces.data?.[0]?.id ?? "";
  const submit = async (event: Event) => {
    event.preventDefault();
    const payload = await mutation.run(
      async () =>
        (
          await api.request(CreateApiKeyDocument, {
            input: {
              role,
              spaceId: role === "ADMIN" ? null : spaceId || firstSpace || null,
              label: label || null,
              // datetime-local has no zone: the browser's local time, sent as an instant.
              expiresAt: expiresAt ? new Date(expiresAt).toISOString() : null,
            },
          })
        ).createApiKey,
    );
    if (payload?.apiKey && payload.secret) onDone({ id: payload.apiKey.id, secret: payload.secret });
  };
  return (
    <EditForm label="Create API key" onSubmit={submit} mutation={mutation} fields={["role", "spaceId", "label", "expiresAt"]} submitLabel="Create key" cancel={() => onDone(null)}>
      <SelectField label="Role" name="role" value={role} onChange={setRole} errors={mutation.errors} options={roles.map((item) => [item, item] as const)} />
      {can.admin && role !== "ADMIN" && (
        <SelectField
          label="Space"
          name="spaceId"
          value={spaceId}
          onChange={setSpaceId}
          errors={mutation.errors}
          options={spaceChoices(spaces.data)}
        />
      )}
      {can.admin && role !== "ADMIN" && <SpaceOptionsError spaces={spaces} />}
      <TextField label="Label" name="label" value={label} onInput={setLabel} errors={mutation.errors} hint="A note to recognise the key by." />
      <TextField label="Expires" name="expiresAt" value={expiresAt} onInput={setExpiresAt} errors={mutation.errors} type="datetime-local" hint="Your local time; empty: never." />
    </EditForm>
  );
}
