// The agent asks the person questions (request_user_input): options, free text, or both.
import { useId, useState } from 'react';
import type { ToolRequestUserInputQuestion } from '../../../src-preload/protocol';
import type { IncomingServerRequest } from '../../client/types';
import { Icon } from '../../components/Icon';
import { useController } from '../../store/app-context';

type UserInputRequest = Extract<IncomingServerRequest, { method: 'item/tool/requestUserInput' }>;

function Question({
  question,
  value,
  onChange,
}: {
  question: ToolRequestUserInputQuestion;
  value: string[];
  onChange: (v: string[]) => void;
}) {
  const name = useId();
  const options = question.options ?? [];
  const freeText = question.options === null || question.isOther === true;
  const typed = value.find((v) => !options.some((o) => o.label === v)) ?? '';
  return (
    <fieldset className="question">
      <legend>
        <span className="question-header">{question.header}</span>
        <span className="question-text">{question.question}</span>
      </legend>
      {options.map((option) => (
        <label key={option.label} className="option">
          <input
            type="radio"
            name={name}
            checked={value.includes(option.label)}
            onChange={() => onChange([option.label])}
          />
          <span>
            <span className="option-label">{option.label}</span>
            {option.description !== '' && <span className="muted"> — {option.description}</span>}
          </span>
        </label>
      ))}
      {freeText && (
        <input
          className="text-input"
          type={question.isSecret === true ? 'password' : 'text'}
          aria-label={options.length > 0 ? `Other answer to: ${question.question}` : question.question}
          placeholder={options.length > 0 ? 'Other…' : 'Your answer'}
          value={typed}
          onChange={(e) => onChange(e.target.value === '' ? [] : [e.target.value])}
        />
      )}
    </fieldset>
  );
}

export function UserInputDialog({ request }: { request: UserInputRequest }) {
  const controller = useController();
  const titleId = useId();
  const [answers, setAnswers] = useState<Record<string, string[]>>({});
  const questions = request.params.questions;
  return (
    <section className="approval" role="dialog" aria-modal="false" aria-labelledby={titleId}>
      <header className="approval-head">
        <Icon name="user" />
        <h2 id={titleId}>{questions.length === 1 ? 'Answer question' : 'Answer questions'}</h2>
      </header>
      {questions.map((question) => (
        <Question
          key={question.id}
          question={question}
          value={answers[question.id] ?? []}
          onChange={(v) => setAnswers({ ...answers, [question.id]: v })}
        />
      ))}
      <div className="approval-actions">
        <button type="button" className="btn btn-primary" onClick={() => controller.answerUserInput(request, answers)}>
          Submit answers
        </button>
        <button type="button" className="btn" onClick={() => controller.answerUserInput(request, {})}>
          Skip
        </button>
      </div>
    </section>
  );
}
